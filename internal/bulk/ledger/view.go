package ledger

// What `bnpl ledger` shows: the runs a ledger knows, and who holds which
// payment's claim. These only read.

// RunView is a run as `bnpl ledger list` shows it.
type RunView struct {
	RunInfo
	// State is running (alive), ended (its summary made), or stopped
	// (killed, crashed, or cut off before its summary).
	State string
	// Rows is how many rows of its input it recorded; Claims how many
	// payments it holds now.
	Rows, Claims int
}

// Claim is a payment a live run holds.
type Claim struct {
	Scope, PaymentID string
	Run              int64
	Since            string
}

// Runs are the runs the ledger knows, the latest first, at most limit.
func (l *Ledger) Runs(limit int) ([]RunView, error) {
	rows, err := db{l}.Query("SELECT "+runColumns+" FROM runs ORDER BY id DESC LIMIT ?", limit)
	if err != nil {
		return nil, l.wrap(err)
	}
	var out []RunView
	for rows.Next() {
		r, err := scanRun(rows.Scan)
		if err != nil {
			rows.Close()
			return nil, l.wrap(err)
		}
		out = append(out, RunView{RunInfo: *r})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, l.wrap(err)
	}
	claims, err := l.Claims()
	if err != nil {
		return nil, err
	}
	held := map[int64]int{}
	for _, c := range claims {
		held[c.Run]++
	}
	for i := range out {
		v := &out[i]
		switch {
		case v.Ended.IsZero() && l.alive(&v.RunInfo):
			v.State = "running"
		case v.Summarized:
			v.State = "ended"
		default:
			v.State = "stopped"
		}
		v.Claims = held[v.ID]
		q := db{l}
		if err := q.QueryRow("SELECT count(*) FROM run_rows WHERE run = ?", v.ID).Scan(&v.Rows); err != nil {
			return nil, l.wrap(err)
		}
	}
	return out, nil
}

// RunByID is what the ledger says of run id; nil when it does not know it.
func (l *Ledger) RunByID(id int64) *RunInfo { return l.runByID(db{l}, id) }

// Claims are the payments live runs hold now, by payment.
func (l *Ledger) Claims() ([]Claim, error) {
	rows, err := db{l}.Query("SELECT scope, payment_id, run, since FROM claims WHERE run <> 0 ORDER BY payment_id")
	if err != nil {
		return nil, l.wrap(err)
	}
	var all []Claim
	for rows.Next() {
		var c Claim
		if err := rows.Scan(&c.Scope, &c.PaymentID, &c.Run, &c.Since); err != nil {
			rows.Close()
			return nil, l.wrap(err)
		}
		all = append(all, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, l.wrap(err)
	}
	alive := map[int64]bool{}
	var out []Claim
	for _, c := range all {
		ok, seen := alive[c.Run]
		if !seen {
			r := l.runByID(db{l}, c.Run)
			ok = r != nil && l.alive(r)
			alive[c.Run] = ok
		}
		if ok {
			out = append(out, c)
		}
	}
	return out, nil
}
