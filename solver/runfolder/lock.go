package runfolder

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// LockName is the lock file of a run folder. One process at a time works
// in a run folder: solver.Open takes an exclusive lock on this file (flock(2),
// which the kernel drops when the process ends, however it ends) and
// writes who holds it, so a second process can say who is in the way.
const LockName = "lock"

// ErrLocked marks a solver.Open refused because another process holds the run
// folder.
var ErrLocked = errors.New("run folder in use")

// Holder is what a lock file says of the process holding the lock.
type Holder struct {
	PID     int       `json:"pid"`
	Host    string    `json:"host"`
	Started time.Time `json:"started"`
	Command string    `json:"command"`
}

func (h Holder) String() string {
	return fmt.Sprintf("pid %d on %s, started %s (%s)", h.PID, h.Host, h.Started.Format(time.DateTime+" MST"), h.Command)
}

// Lock is a held lock on a run folder.
type Lock struct{ f *os.File }

// LockFolder takes the lock of run folder dir, or fails with ErrLocked
// naming the holder.
func LockFolder(dir string) (*Lock, error) {
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if !errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		who := "another process (it has not said who yet)"
		var h Holder
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &h) == nil && h.PID != 0 {
			who = h.String()
		}
		return nil, fmt.Errorf("%w: %s is held by %s; wait for it to finish or stop it, then run this again", ErrLocked, dir, who)
	}
	host, _ := os.Hostname()
	h := Holder{PID: os.Getpid(), Host: host, Started: time.Now().Truncate(time.Second), Command: strings.Join(commandLine(), " ")}
	b, _ := json.Marshal(h)
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	return &Lock{f: f}, nil
}

// commandLine is the program's command line, its path shortened to the
// base name.
func commandLine() []string {
	args := append([]string(nil), os.Args...)
	if len(args) > 0 {
		args[0] = filepath.Base(args[0])
	}
	return args
}

// Unlock releases the lock. The lock file stays: removing it would let a
// process that opened it just before take a lock on a file no longer in
// the folder.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the last descriptor drops the flock
	l.f = nil
	return err
}

// RemoveTemporaries removes what a killed process left half-written in
// run folder dir: the temporary files (".NAME<digits>") that atomicfile
// renames over a final name on commit. The caller holds the folder's
// lock, so no other process is writing them. (Partials have folders of
// their own, which the steps that write them empty first.)
func RemoveTemporaries(dir string) {
	for _, sub := range []string{".", "levels", "db"} {
		es, _ := os.ReadDir(filepath.Join(dir, sub))
		for _, e := range es {
			if strings.HasPrefix(e.Name(), ".") && e.Type().IsRegular() {
				os.Remove(filepath.Join(dir, sub, e.Name()))
			}
		}
	}
}
