package ledger

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Error is a ledger of moves that cannot be opened, read or written when
// a run begins (damaged, not a database, another user's, a state
// directory that is read-only, a database that cannot be reached): nothing
// was sent. Without its ledger a run could neither keep off the payments
// another run works on nor tell its moves from theirs.
type Error struct {
	// Where is the ledger's file, or its database's host and name.
	Where string
	Err   error
	// hint, when set, is what to do (a PostgreSQL ledger's).
	hint string
	// access: the problem is who may read or write the ledger or its
	// directory, not what the file holds.
	access bool
	// gone: the ledger (or the run's lock) was lost while the run went
	// on; the run stopped there.
	gone bool
	// newer: the ledger's schema is of a later bnpl.
	newer bool
	// stopped: a read or write of the ledger failed while the run went
	// on (a ledger damaged or truncated under it): the run stopped there.
	stopped bool
}

// Unusable is err, met reading or writing the ledger before a run sends
// anything (a ledger truncated or malformed past what opening it reads),
// as the *Error that stops the run there: exit 12, nothing sent. An
// *Error is returned as it is.
func (l *Ledger) Unusable(err error) error {
	var le *Error
	if err == nil || errors.As(err, &le) {
		return err
	}
	if l.half == nil {
		return &Error{Where: "ledger", Err: err}
	}
	return l.half.fail(err)
}

// Stopped is err, met reading or writing the ledger while a run goes on,
// as the *Error that stops the run (exit 12): a ledger damaged or
// truncated under the run can no longer say which run moved what. An
// *Error is returned as it is.
func (l *Ledger) Stopped(err error) error {
	var le *Error
	if err == nil || errors.As(err, &le) {
		return err
	}
	return &Error{Where: l.Where(), Err: err, stopped: true}
}

func (e *Error) Error() string {
	if e.gone || e.stopped {
		return fmt.Sprintf("the ledger of bulk moves %s: %v: the run stopped, and sent nothing more", e.Where, e.Err)
	}
	return fmt.Sprintf("the ledger of bulk moves %s cannot be used: %v; nothing was sent", e.Where, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// ExitCode is 12, as for the sandbox's state file: a file of bnpl's state
// that cannot be used.
func (e *Error) ExitCode() int { return 12 }

// Gone reports whether the ledger was lost while the run went on.
func (e *Error) Gone() bool { return e.gone }

func (e *Error) Hint() string {
	switch {
	case e.hint != "":
		return e.hint
	case e.gone:
		return "run the same command again: it resumes from its journal, with the ledger now there; " +
			"never remove bnpl's state directory (or files in it) while a bulk run goes on"
	case e.stopped:
		return "if the ledger is damaged (a disk full, a copy or a sync tool cut it), move it aside (mv " + e.Where + " " + e.Where + ".damaged) " +
			"and run the same command again: it resumes from its journal; a new ledger cannot attribute the moves earlier runs made " +
			"(they are held_before, counted apart, and the money of a run killed before its summary is in no summary)"
	case e.newer:
		return "upgrade bnpl on this machine to the version that made the ledger (bnpl version says which this is)"
	case e.access:
		return "every bulk run keeps its moves in bnpl's state directory (XDG_STATE_HOME, else ~/.local/state): " +
			"make " + filepath.Dir(e.Where) + " and the ledger yours and writable, or set XDG_STATE_HOME to a directory that is"
	}
	return "move the file aside (mv " + e.Where + " " + e.Where + ".damaged) and run again with --ledger-lost: nothing is sent until then. " +
		"A new ledger cannot attribute the moves earlier runs made: a run finds them held_before (moved outside its ledger, counted apart, never as its own), " +
		"and the money of a run killed before its summary is in no summary; rows keep their reference_id, so the service applies none twice"
}

// fail turns err of the ledger's file into an *Error: a problem of access
// when err says so, or when bnpl cannot write in its directory.
func (h *sqliteHalf) fail(err error) *Error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	if isNewer(err) {
		return &Error{Where: h.path, Err: err, newer: true}
	}
	access := errors.Is(err, fs.ErrPermission) || errors.Is(err, errNotYours) || errors.Is(err, syscall.EROFS)
	if !access {
		probe, perr := os.CreateTemp(filepath.Dir(h.path), ".bulk-ledger-probe-*")
		if perr != nil {
			access = true
		} else {
			probe.Close()
			_ = os.Remove(probe.Name())
		}
	}
	return &Error{Where: h.path, Err: err, access: access}
}

// errNotYours is a ledger file another user owns.
var errNotYours = errors.New("the file belongs to another user")

// fail turns err of a PostgreSQL ledger into an *Error that names the
// database (never the password) and says what to do.
func (h *pgHalf) fail(err error) *Error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	e := &Error{Where: h.where(), Err: errors.New(h.scrub(unwrapAll(err).Error()))}
	var pg *pgconn.PgError
	switch {
	case isNewer(err):
		e.Err, e.newer = err, true
	case errors.As(err, &pg) && (pg.Code == "28P01" || pg.Code == "28000"):
		e.Err = fmt.Errorf("the database refused user %s: %s", h.user, pg.Message)
		e.hint = "check the user and its password: bnpl takes the password from the URL, else PGPASSWORD, else ~/.pgpass " +
			"(host:port:database:user:password, mode 600); it never prints it"
	case errors.As(err, &pg) && pg.Code == "42501":
		e.Err = fmt.Errorf("user %s may not make or use the ledger's tables: %s", h.user, pg.Message)
		e.hint = fmt.Sprintf("ask the database's owner to run, in %s: GRANT USAGE, CREATE ON SCHEMA public TO %s; "+
			"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO %s (or to make the tables once, as a user who may, with bnpl ledger list --ledger URL)",
			h.database, h.user, h.user)
	case errors.As(err, &pg) && pg.Code == "3D000":
		e.Err = fmt.Errorf("there is no database %s: %s", h.database, pg.Message)
		e.hint = fmt.Sprintf("create it (createdb -h %s -p %s -U %s %s), or name one that exists in the URL", h.host, h.port, h.user, h.database)
	case errors.As(err, &pg):
		e.Err = fmt.Errorf("%s (SQLSTATE %s)", h.scrub(pg.Message), pg.Code)
	default:
		e.Err = fmt.Errorf("cannot reach it: %s", h.scrub(distinctLines(unwrapAll(err).Error())))
		e.hint = fmt.Sprintf("check that PostgreSQL runs at %s and this machine may reach it "+
			"(TLS as the URL's sslmode says, as libpq does); or leave out --ledger and BNPL_LEDGER to keep the ledger on this machine",
			h.where())
	}
	return e
}

// distinctLines is an error's text on one line, each of its lines once:
// the driver joins the error of every attempt it made (with TLS, then
// without, as sslmode=prefer does), which are often the same words.
func distinctLines(s string) string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return strings.Join(out, "; ")
}
