package replay

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// spool keeps a recording's bodies out of memory, so that a replay's
// memory does not grow with the recording's size: each body is written
// once, as its entry is read, to a private temporary file (0600, in the
// system's temporary directory, unlinked at once where the system allows
// an open file to be, else when the recording is closed), and read back
// each time the engine needs it. Where no temporary file can be made the
// bodies stay in memory.
type spool struct {
	mu   sync.Mutex
	f    *os.File
	name string // the file's name while it is still linked
	mem  []byte // the bodies, when there is no file
	size int64
	err  error // the first failure to write or read
	shut bool
}

// span is where one body lies in the spool.
type span struct {
	off int64
	n   int
}

// maxSpool bounds what a recording's bodies may decode to, against a
// small file of compressed bodies that would fill the disk: 16 times what
// was read of the file, and spoolSlack more.
func maxSpool(read int64) int64 { return 16*read + spoolSlack }

var spoolSlack int64 = 64 << 20

func newSpool() *spool {
	s := &spool{}
	f, err := os.CreateTemp("", "bnpl-replay-*.bodies")
	if err != nil {
		return s
	}
	s.f = f
	if os.Remove(f.Name()) != nil {
		s.name = f.Name()
	}
	return s
}

// put adds a body; the empty body takes no room.
func (s *spool) put(b []byte) (span, error) {
	if len(b) == 0 {
		return span{}, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at := span{off: s.size, n: len(b)}
	if s.f == nil {
		s.mem = append(s.mem, b...)
	} else if _, err := s.f.WriteAt(b, s.size); err != nil {
		return span{}, fmt.Errorf("keeping the recording's bodies in a temporary file: %w", err)
	}
	s.size += int64(len(b))
	return at, nil
}

// get reads a body back; a failure to read is kept (failed) and reads as
// no body.
func (s *spool) get(at span) []byte {
	if at.n == 0 {
		return nil
	}
	if s.shut {
		s.fail(errors.New("the recording was closed"))
		return nil
	}
	if s.f == nil {
		return s.mem[at.off : at.off+int64(at.n) : at.off+int64(at.n)]
	}
	b := make([]byte, at.n)
	if _, err := s.f.ReadAt(b, at.off); err != nil {
		s.fail(err)
		return nil
	}
	return b
}

func (s *spool) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.err = fmt.Errorf("reading the recording's bodies back from their temporary file: %w", err)
	}
}

// failed is the first failure to read a body back, nil when none.
func (s *spool) failed() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// close removes the file; the bodies cannot be read after.
func (s *spool) close() error {
	if s == nil || s.shut {
		return nil
	}
	s.shut, s.mem = true, nil
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	if s.name != "" {
		if rerr := os.Remove(s.name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	s.f = nil
	return err
}
