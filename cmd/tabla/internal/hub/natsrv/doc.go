// Package natsrv is a club hub's NATS server and credentials: the server
// `tabla hub` embeds (Server, with JetStream), the users of the account
// TABLA and their permissions (Credentials: the admin, the read-only
// spectator, one user per table; NATSConfig for an existing server or
// cluster), the reload of those users when a table is added (CredWatch),
// and the streams and buckets the hub keeps (Setup).
//
// It is one of the hub's four rooms (package hub's doc); the names it
// grants are package wire's.
package natsrv
