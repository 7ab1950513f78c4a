package replay

import (
	"context"
	"net/http"
	"time"

	"github.com/bnpl-cli/bnpl/internal/har"
	"github.com/bnpl-cli/bnpl/internal/secret"
)

// Report is what a verify run found.
type Report struct {
	Recording string `json:"recording"`
	Sandbox   string `json:"sandbox"`
	// Exchanges counts the recording's requests to the service; Compared
	// those replayed and compared.
	Exchanges int `json:"exchanges"`
	Compared  int `json:"compared"`
	// Notifications counts the recording's notifications; those of
	// payments and disputes the replay made are compared.
	Notifications         int          `json:"notifications"`
	NotificationsCompared int          `json:"notifications_compared"`
	Differences           []Difference `json:"differences"`
	// AnswerDifferences (replay) are the places where the sandbox answered
	// the app otherwise than the service did: verify's to list.
	AnswerDifferences []Difference `json:"answer_differences,omitempty"`
	// Unexpected (replay) counts the app's requests the recording lacks.
	Unexpected int          `json:"unexpected,omitempty"`
	Ignored    []Difference `json:"ignored"`
	Actions    []Action     `json:"actions"`
	Skipped    []Note       `json:"skipped"`
	Seconds    float64      `json:"seconds"`
	// Entries counts the file's entries: Exchanges, Notifications and
	// those LeftOut add up to it.
	Entries int       `json:"entries"`
	LeftOut []LeftOut `json:"left_out"`
}

// Verify replays every request of the recording in order against the
// sandbox and compares each answer, then the notifications.
func (e *Engine) Verify(ctx context.Context) (*Report, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	start := time.Now()
	rep := &Report{Recording: e.rec.Name, Notifications: e.rec.Notifications(),
		Differences: []Difference{}, Ignored: []Difference{}, Entries: e.rec.Entries, LeftOut: append([]LeftOut{}, e.rec.LeftOut...)}
	var hooks *hookSet
	list := e.rec.Exchanges
	hookAt := hooksFrom(list)
	for i := 0; i < len(list); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if hooks == nil && rep.Notifications > 0 && i >= hookAt {
			var err error
			if hooks, err = e.startHooks(ctx); err != nil {
				return nil, err
			}
			defer hooks.stop(ctx, e)
		}
		x := list[i]
		if x.Kind == har.KindNotification {
			e.ensure(ctx, x)
			i++
			continue
		}
		j := overlapEnd(list, i)
		e.replayed = append(e.replayed, replayMark{at: time.Now(), x: x})
		diffs, compared, err := e.verifyGroup(ctx, list[i:j])
		if err != nil {
			return nil, err
		}
		e.noteShown(list[i:j])
		rep.Exchanges += j - i
		rep.Compared += compared
		rep.Differences = append(rep.Differences, diffs...)
		i = j
	}
	if hooks == nil && rep.Notifications > 0 {
		var err error
		if hooks, err = e.startHooks(ctx); err != nil {
			return nil, err
		}
		defer hooks.stop(ctx, e)
	}
	if hooks != nil {
		diffs, compared := e.compareNotifications(ctx, hooks)
		rep.Differences = append(rep.Differences, diffs...)
		rep.NotificationsCompared = compared
	}
	if err := e.rec.bodies.failed(); err != nil {
		return nil, err
	}
	rep.Actions, rep.Skipped = append([]Action{}, e.actions...), append([]Note{}, e.notes...)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// verifyOne replays one recorded request; diffs is nil when it was not
// compared (a note says why).
func (e *Engine) verifyOne(ctx context.Context, x *Exchange) ([]Difference, error) {
	if !e.replayable(x) {
		return nil, nil
	}
	e.ensure(ctx, x)
	ans, err := e.send(ctx, x, x.Method, x.Path, x.Query, x.Header, x.body())
	if err != nil {
		return nil, err
	}
	return append([]Difference{}, e.compareAnswer(x, ans, "answer")...), nil
}

// Printable makes the report's strings that come from a recording (paths,
// fields, values, reasons, notes) safe to print anywhere, a pipe
// included: control characters and bidi marks are shown as escapes
// (\u202e), so a hostile recording cannot reorder or hide what a reader
// sees.
func (r *Report) Printable() {
	for _, list := range [][]Difference{r.Differences, r.AnswerDifferences, r.Ignored} {
		for i := range list {
			d := &list[i]
			for _, s := range []*string{&d.Method, &d.Path, &d.Field, &d.Want, &d.Got, &d.Ignored} {
				*s = secret.PrintableLine(*s)
			}
		}
	}
	for i := range r.Skipped {
		n := &r.Skipped[i]
		n.Method, n.Path, n.Why = secret.PrintableLine(n.Method), secret.PrintableLine(n.Path), secret.PrintableLine(n.Why)
	}
	for i := range r.Actions {
		a := &r.Actions[i]
		a.Recorded, a.SandboxID, a.Error = secret.PrintableLine(a.Recorded), secret.PrintableLine(a.SandboxID), secret.PrintableLine(a.Error)
	}
	r.Recording = secret.PrintableLine(r.Recording)
}

// hooksFrom is where in list the verifier's webhooks are registered: the
// service notified only the webhooks that existed, so where the recording
// registers one (a successful POST /api/v1/webhooks or dispute-webhooks)
// before any notification it holds, the sandbox's notifications are
// heard from the request after it; otherwise (the app's webhook was
// there before the recording began) from the start.
func hooksFrom(list []*Exchange) int {
	for i, x := range list {
		if x.Kind == har.KindNotification {
			return 0
		}
		if x.Method == http.MethodPost && x.Status/100 == 2 && (x.Path == "/api/v1/webhooks" || x.Path == "/api/v1/dispute-webhooks") {
			return i + 1
		}
	}
	return 0
}
