package hubcmd_test

import (
	"golang.org/x/crypto/bcrypt"

	"github.com/tabla-board/tabla/cmd/tabla/internal/hub/natsrv"
)

// The users' password hashes at bcrypt's lowest cost: at the default cost
// one check takes seconds under the race detector on a loaded machine, and
// the NATS server pings a client whose CONNECT it has not answered within
// two (the handshake then fails: "expected 'PONG', got 'PING'"), as the
// hub package's tests know.
func init() { natsrv.BcryptCost = bcrypt.MinCost }
