package ledger

import "database/sql"

// Adopt takes, for this run's summary, the money of move id when the run
// that moved it cannot count it: it sent the move and ended without
// recording that it moved (killed while the request was in flight, or
// left it of unknown outcome), or it recorded the move and was killed
// before its summary. That run's send is the only one that can explain
// the move, since it held the payment's claim. The service applies a
// reference_id once per payment, so the ledger's moves of one payment, op
// and reference_id (its twins: a row with a reference_id of its own,
// edited since) are one move there, adopted as one. A move is adopted
// once, by the first run that finds it and makes its summary (a run
// killed before its summary leaves what it adopted to the next); nil when
// there is nothing to adopt.
func (l *Ledger) Adopt(id string) *RunInfo {
	var ended *RunInfo
	err := l.inTx(func(t tx) error {
		var twins []string
		if ended, twins = l.adoptable(t, id); ended == nil {
			return nil
		}
		for _, twin := range append(twins, id) {
			if _, err := t.Exec("UPDATE moves SET adopted_by = ? WHERE id = ?", l.run, twin); err != nil {
				return err
			}
		}
		_, err := t.Exec("UPDATE moves SET moved_by = ? WHERE id = ?", ended.ID, id)
		return err
	})
	if err != nil {
		return nil
	}
	return ended
}

// Adoptable is the run whose move id this run would adopt (see Adopt),
// read without adopting it; nil when none.
func (l *Ledger) Adoptable(id string) *RunInfo {
	ended, _ := l.adoptable(db{l}, id)
	return ended
}

// twinMove is a move of the ledger as adoption reads it.
type twinMove struct {
	id, phase          string
	run                int64
	movedBy, adoptedBy sql.NullInt64
}

// twins are move id and the ledger's other moves of the same scope,
// payment, op and reference_id that were sent or settled.
func (l *Ledger) twins(q querier, id string) ([]twinMove, error) {
	rows, err := q.Query(`SELECT m.id, m.phase, m.run, m.moved_by, m.adopted_by FROM moves m, moves o
		WHERE o.id = ? AND (m.id = o.id OR (m.scope = o.scope AND m.payment_id = o.payment_id AND m.op = o.op
			AND m.reference_id = o.reference_id AND m.phase IN (?, ?, ?)))`, id, PhaseSent, PhaseUnknown, PhaseConfirmed)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []twinMove
	for rows.Next() {
		var m twinMove
		if err := rows.Scan(&m.id, &m.phase, &m.run, &m.movedBy, &m.adoptedBy); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// adoptable is the run whose move id (one move on the service with its
// twins) this run would adopt, and the twins' ids (see Adopt); nil when
// some run counts the move already (it confirmed it and made or will make
// its summary, or adopted it and so), or none can be named.
func (l *Ledger) adoptable(q querier, id string) (*RunInfo, []string) {
	twins, err := l.twins(q, id)
	if err != nil {
		return nil, nil
	}
	var ended *RunInfo
	var ids []string
	for _, m := range twins {
		if m.id != id {
			ids = append(ids, m.id)
		}
		if m.adoptedBy.Valid && l.counts(q, m.adoptedBy.Int64) {
			return nil, nil
		}
		run, confirmed := m.run, false
		switch {
		case m.phase == PhaseSent || m.phase == PhaseUnknown:
		case m.phase == PhaseConfirmed && m.movedBy.Valid:
			run, confirmed = m.movedBy.Int64, true
		default:
			continue
		}
		info := l.endedRun(q, run)
		// A run that made its summary counted the moves it confirmed; a
		// live one (or this one) has its own send to settle.
		if run == l.run || info == nil || (confirmed && info.Summarized) {
			return nil, nil
		}
		if ended == nil || confirmed {
			ended = info
		}
	}
	return ended, ids
}

// InDoubt is the other run that sent move id, or a twin of it (see
// Adopt), and has no answer for it yet (the move is sent, or of unknown
// outcome), or nil.
func (l *Ledger) InDoubt(id string) *RunInfo {
	twins, err := l.twins(db{l}, id)
	if err != nil {
		return nil
	}
	for _, m := range twins {
		if (m.phase == PhaseSent || m.phase == PhaseUnknown) && m.run != l.run {
			return l.runByID(db{l}, m.run)
		}
	}
	return nil
}

// Sent reports whether the ledger knows a send of move id, or of a twin
// of it (see Adopt): some run of this ledger sent, settled or found it.
// When it cannot tell, it says yes.
func (l *Ledger) Sent(id string) bool {
	twins, err := l.twins(db{l}, id)
	if err != nil {
		return true
	}
	for _, m := range twins {
		if m.phase == PhaseSent || m.phase == PhaseUnknown || m.phase == PhaseConfirmed {
			return true
		}
	}
	return false
}

// counts reports whether the run that adopted a move counts it: this run,
// a run still alive (its summary is to come), or one that made its
// summary. A run killed before its summary counted nothing, so what it
// adopted is adopted again by the next run that finds it.
func (l *Ledger) counts(q querier, adopter int64) bool {
	if adopter == l.run {
		return true
	}
	info := l.endedRun(q, adopter)
	return info == nil || info.Summarized
}

// endedRun is run id as the ledger holds it once the run has ended; nil
// while it lives, or when the ledger does not know it. Whether it lives is
// asked before what it recorded is read: a run records its summary before
// it lets go of what says it lives, so a run found ended is read with its
// summary recorded if it made one. Read the other way round (a shared
// ledger's readers do not wait for a run that records its summary), a
// run that made its summary and ended in between would look ended before
// its summary, and the moves it counted would be counted again for it.
func (l *Ledger) endedRun(q querier, id int64) *RunInfo {
	if info := l.runByID(q, id); info == nil || l.alive(info) {
		return nil
	}
	return l.runByID(q, id)
}

// Summarized records that this run's summary is made: a run killed after
// this counted its moves itself, and none is adopted from it.
func (l *Ledger) Summarized() error {
	return l.exec("UPDATE runs SET summarized = 1 WHERE id = ?", l.run)
}
