package store

import (
	"context"
	"os"
	"time"
)

// A lease is a named lock of the state, kept in its settings so that it
// holds across the processes sharing the file: its holder renews it while
// it works, and a holder that dies lets it lapse.

// LeaseHolder says who holds a lease, for the one who finds it taken.
type LeaseHolder struct {
	Owner string    `json:"owner"`
	PID   int       `json:"pid"`
	What  string    `json:"what,omitempty"` // what the holder is doing, in its words
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
}

// NewLeaseHolder is a holder for this process, doing what.
func NewLeaseHolder(what string) LeaseHolder {
	return LeaseHolder{Owner: NewLockOwner(), PID: os.Getpid(), What: what, Since: time.Now().UTC()}
}

func leaseKey(name string) string { return "lease:" + name }

// TakeLease takes the lease name for h until ttl from now, in one
// transaction. When another holder has it and it has not lapsed, it
// answers that holder and false.
func (s *State) TakeLease(ctx context.Context, name string, h LeaseHolder, ttl time.Duration) (LeaseHolder, bool, error) {
	tx, err := s.DB.BeginTx(ctx, nil) // IMMEDIATE: the read and the write are one
	if err != nil {
		return LeaseHolder{}, false, err
	}
	defer tx.Rollback()
	var cur LeaseHolder
	found, err := ReadSetting(ctx, tx, leaseKey(name), &cur)
	if err != nil {
		return LeaseHolder{}, false, err
	}
	if found && cur.Owner != h.Owner && time.Now().Before(cur.Until) {
		return cur, false, nil
	}
	h.Until = time.Now().Add(ttl).UTC()
	if err := WriteSetting(ctx, tx, leaseKey(name), h); err != nil {
		return LeaseHolder{}, false, err
	}
	return h, true, tx.Commit()
}

// RenewLease moves the lease's end to ttl from now, if h still holds it.
func (s *State) RenewLease(ctx context.Context, name string, h LeaseHolder, ttl time.Duration) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE settings SET v = json_set(v, '$.until', ?) WHERE k = ? AND json_extract(v, '$.owner') = ?`,
		time.Now().Add(ttl).UTC().Format(time.RFC3339Nano), leaseKey(name), h.Owner)
	return err
}

// DropLease gives the lease up, if h holds it; it works even when the
// caller's context is gone.
func (s *State) DropLease(name string, h LeaseHolder) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = s.DB.ExecContext(ctx, `DELETE FROM settings WHERE k = ? AND json_extract(v, '$.owner') = ?`, leaseKey(name), h.Owner)
}
