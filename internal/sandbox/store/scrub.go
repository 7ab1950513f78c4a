package store

import "context"

// Deleted secrets leave the state file. The store runs with secure_delete,
// so SQLite overwrites with zeros what a DELETE or an UPDATE frees in the
// database file; but in WAL mode the page as it was before, webhook header
// value included, still sits in the -wal file until a checkpoint copies the
// new pages over and the log is emptied. scrub does that at once after a
// webhook is removed and after a reset. It is best effort: a reader in
// another process sharing the file keeps the log until it lets go, and
// the next checkpoint empties it then.
func (s *State) Scrub(ctx context.Context) {
	if s.DB == nil {
		return
	}
	var busy, logFrames, checkpointed int
	_ = s.DB.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &checkpointed)
}
