package companion

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// One daemon per journal folder: two `tabla run` on one folder would both
// append to the same journal and break it. LockJournalDir takes an
// exclusive lock (flock) on LockFile in the folder, held until Unlock or
// the process ends (a crash or a SIGKILL lets it go with the process);
// the lock file says who holds it. Readers (`tabla library`, the hub's
// copy) never take it.

// LockFile is the file of a journal folder its daemon holds locked.
const LockFile = ".tabla-lock"

// lockHolder is what the lock file says of the process holding it.
type lockHolder struct {
	PID     int       `json:"pid"`
	Since   time.Time `json:"since"`
	Command string    `json:"command,omitempty"`
}

// LockedError: another process holds the journal folder.
type LockedError struct {
	Dir string
	// PID, Since and Command are what the lock file says of its holder
	// (zero when it could not say: written on a full card, say).
	PID     int
	Since   time.Time
	Command string
}

func (e *LockedError) Error() string {
	who := "another tabla process"
	if e.PID > 0 {
		who = fmt.Sprintf("another tabla process (pid %d", e.PID)
		if !e.Since.IsZero() {
			who += ", since " + e.Since.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		if e.Command != "" {
			who += ", " + e.Command
		}
		who += ")"
	}
	stop := "stop it"
	if e.PID > 0 {
		stop = fmt.Sprintf("stop it (sudo systemctl stop tabla, or kill %d)", e.PID)
	}
	return fmt.Sprintf("journal folder %s is in use by %s: one daemon per journal folder, or both would write the same journal. "+
		"To run this one, %s, or give this one another --journal folder; `tabla library %s` reads the games without stopping it",
		e.Dir, who, stop, e.Dir)
}

// parseHolder reads a lock file's contents into e.
func (e *LockedError) parseHolder(b []byte) {
	var h lockHolder
	if json.Unmarshal([]byte(strings.TrimSpace(string(b))), &h) == nil {
		e.PID, e.Since, e.Command = h.PID, h.Since, h.Command
	}
}
