// Package bulk runs money moves (capture, refund or close) over many
// payments read from a file, each row making the run's move or, for
// apply, the move its op column names: it validates every row before anything is
// sent, sends rows through a small worker pool that never runs two rows of
// the same payment at once, records every run in the ledger so an
// interrupted or crashed run can be resumed without moving money twice,
// and writes a per-row report.
//
// The package knows nothing of HTTP: it drives a Client (the api client's
// method set) and learns what an error means through Options.Classify, so
// the command layer decides how API and network errors are read.
//
// # Identity and the ledger
//
// A move is known by what it means once decoded (see rowIdentity): never
// by its file's bytes, encoding, line ends, column or row order, or the
// command that read it. Every run on the machine shares a ledger of moves
// keyed by that identity (see ledger): a run records its rows' intent
// there before it sends anything, claims a payment before it sends its
// moves (one run per payment at a time: another waits, told which run it
// waits for), marks each move sent before its request and settles it with
// the answer. Moved, in a summary, is only what this run's claimed sends
// moved; the summary and the report are queries over the run's rows in
// the ledger. The ledger is a run's only record, and what every run
// agrees on.
//
// # Ordering
//
// A run does not hold its rows: it reads its input again for each pass (a
// RowSource), once to learn its input's identity, once to record its rows
// and count what is still to send, once to send it. Rows read wait in their payment's queue, in input
// order, at most a few thousand at a time (reading waits while that many
// wait). A worker takes a payment whose queue has rows, claims it, and
// runs them one after the other, because the service locks a payment for
// each request; the other workers go on with other payments meanwhile,
// and no two workers ever hold the same payment. What a run keeps is per
// payment (the payment as last read, what its rows have moved, the
// reference_ids its rows send), a 20-byte slot per distinct row (to number
// identical rows, see rowIdentity) and its input's sketch.
//
// # Resume: the ledger holds the run
//
// A run can be stopped at any instant, by Ctrl-C or a crash, and run again
// without moving money twice: the same command on the same input resumes
// it. The ledger holds everything a run did: before a row's request goes
// out, the move's send (the reference_id, the row's own or the one derived
// from the row, see rowIdentity, and the exact amount sent, so that a row
// for a "full" amount is re-sent with the same amount even if the payment
// has changed since); once the answer is known, the row's outcome and the
// move's (ok, reconciled, failed: a definite refusal, or a row refused
// before sending; unknown: no answer, the request may or may not have
// taken effect), in one transaction.
//
// A run finds the runs of its input by what the input means, not by its
// path (see InputIdentity): each run records a sketch of its rows' keys,
// and the runs whose rows are at least half this one's, or whose file has
// the same name, are runs of this input. A row is keyed by its content,
// not its place: a hash of the op, payment_id, amount (as a number, so
// 100.0 and 100.00 agree), reference_id, tax, shipping and discount
// amounts, reason, and how many identical rows came before it in the
// input. An edited row therefore does not match its old record and is
// treated as new (and refused if it repeats a settled move), while
// inserting or moving other rows changes nothing.
//
// On a re-run what the runs of its input recorded of each move decides: a
// row whose outcome is ok or reconciled is not sent again; one that failed
// is not sent again unless Options.RetryFailed (it keeps its reference_id);
// one sent with no outcome, or an unknown one, is reconciled first: the
// payment is read, and when it shows the move (our reference_id with the
// recorded amount; for a close, the CLOSED status) the row is reconciled
// without a request. Rows RetryFailed sends again are reconciled the same
// way. Otherwise the row is re-sent with the recorded reference_id and
// amount. Two runs of one input at once both go on: the ledger's claims
// let one of them at a time send a payment's moves, and the other finds
// them made.
//
// # Old journals
//
// An earlier bnpl kept a run's record in a journal beside its input, a
// file of JSON lines ("run", "send" and "result" records, see
// journalRecord). A run that finds one (Options.JournalPath) imports it
// into the ledger once, by its content, and leaves it as it was: the
// latest send of each row it records and the result of that send become
// this run's record, which this run and the later runs of the input take
// up. Every complete line is checked first: the first must be a "run"
// record, or the file is not a journal and is left as it is; a damaged
// line other than the last stops the run, since it was not made by a
// crash and guessing could move money twice. A torn last line is passed
// over. A journal whose runs recorded their moves in a ledger that is gone
// from where this one is stops the run (see LedgerLostError).
//
// # Report
//
// The report has one line per input row, in input order: line, op, payment_id,
// reference_id, amount (as sent), outcome (ok, reconciled, failed, skipped
// or not_sent), http_status, error_type, message and payment_status (after
// the row, when known). It is CSV with a header, or JSON lines with those
// keys, written to a temporary file and renamed onto its path. Rows settle
// out of input order, into the ledger; the report is written from it, in
// input order, at the end.
//
// # A row's way, file by file
//
// The files follow a row's way, each step calling only the steps after
// it (steps_test.go holds them to it); the driver calls the steps in
// order, and every step may use the shared files.
//
//   - read: read.go (rows from CSV or JSON lines, the columns each op
//     takes), textin.go (UTF-16 and CR-only line ends told), encoding.go
//     (bytes the encoding does not define refused), separator.go (the
//     separator, a "sep=" line), csvheader.go (the header's columns, a
//     likely decimal comma), validate.go (each row's rules, one function
//     each, and repeats within the file).
//   - identify: identity.go (a move's identity: its meaning once decoded
//     and its occurrence among identical moves; derived reference ids),
//     sketch.go (an input known by a sketch of its rows' identities).
//   - plan: plan.go and plan_check.go (the dry run: every row checked
//     against its payment as read, repeats judged once every row is seen).
//   - claim: claim.go (a payment's claim taken in the ledger, waiting for
//     and naming the run that holds it).
//   - send: send_row.go (a row run under the claim: its payment read, a
//     move found made or not, the amounts settled, the checks the plan
//     makes made again), send.go (the move sent, its answer handed on).
//   - settle: settle.go (unknown rows settled before a payment is given
//     back: read, and sent again only when the move is absent),
//     settle_answer.go (what an answer means; an unknown row settled by
//     the next read), settle_made.go (moves found made: by whom,
//     held_before when no run of the ledger sent them, repeats and edited
//     amounts).
//   - report: report.go and summary.go (queries over the ledger),
//     progress.go and bar.go (the progress line and bar while it runs).
//
// The driver: batch.go (prepare: options, the ledger, the input's
// identity and its earlier runs, the passes over the input, the run and
// its verdict), run.go (the stream of rows, a worker's turn on a payment:
// claim, run its rows, settle, give it back; a row settled in the
// ledger), schedule.go (a bounded window of rows queued per payment),
// earlier.go (rows skipped or settled by an earlier run), journal.go,
// ledgerlost.go and ledgermark.go (an old journal imported once; a
// ledger gone from its place stops the run). Shared: bulk.go (the
// package's types), errors.go, records.go (a run's rows as the ledger
// records them), payment.go (what a payment holds and allows: the rules
// the plan, the send and the settling all apply; a row's amounts),
// hashtable.go and private_*.go.
package bulk
