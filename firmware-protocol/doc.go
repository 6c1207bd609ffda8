// Package firmwareprotocol holds the tabla sensor-board protocol: its
// specification (PROTOCOL.md), the Go codec (package wire), the shared test
// vectors (testdata/vectors.txt) and the C reference firmware (firmware/).
//
// This package has no code of its own; its test builds the firmware and runs
// the firmware's host tests, so that `go test ./...` covers the C side too.
package firmwareprotocol
