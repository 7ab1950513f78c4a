package replay

import (
	"bytes"
	"fmt"
	"regexp"
	"sync"
)

// Requests in flight together whose winner is chance (ten captures of one
// payment sent at once: which the service took first, and which it
// refused, is not defined) are compared as a set: the outcomes, status and
// errorType, as a multiset, and what the set left behind, not which
// request won. A recorded answer is paired with a sandbox answer of the
// same outcome, to a request of the same method and path; of those, with
// the one that differs from it least. Where the sandbox's answer is to
// another request than the recorded one, what that request sent in place
// of the recorded one's (a capture's reference_id) stands for it from
// then on, in every later answer too (the payment read after the race
// lists the captures that won, each with its reference_id). Outcomes the
// sandbox has fewer of than the recording are paired with what is left,
// and reported there: a 200 the service gave and the sandbox did not is
// a difference, whichever request had it.

// pairAnswers answers, for each request of sent, the index of the answer
// its recorded answer is compared with. It teaches the engine's id map
// what the paired requests sent in place of each other.
func (e *Engine) pairAnswers(sent []*Exchange, answers []*Answer) []int {
	paired := make([]int, len(sent))
	done := make([]bool, len(sent)) // the recorded answer is paired
	used := make([]bool, len(sent)) // the sandbox's answer is taken
	recorded, replayed := seen(sent, nil), seen(sent, answers)
	// What the requests were sent with: the map as it was then.
	asSent := e.ids.snapshot()
	// Those of the recorded outcome that saw as many of the others first,
	// then those of the recorded outcome, then any left.
	for pass := range 3 {
		for k, x := range sent {
			if done[k] {
				continue
			}
			best, fewest := -1, 0
			for m, y := range sent {
				if used[m] || y.Method != x.Method || Template(y.Path) != Template(x.Path) {
					continue
				}
				if pass < 2 && outcome(x.Status, x.answer()) != outcome(answers[m].Status, answers[m].Body) {
					continue
				}
				if pass == 0 && recorded[k] != replayed[m] {
					continue
				}
				c := &comparer{ids: e.ids.clone()}
				teach(c.ids, asSent, x, y, answers[m])
				n := len(e.compareWith(c, x, answers[m]))
				if best < 0 || n < fewest || (n == fewest && m == k) {
					best, fewest = m, n
				}
			}
			if best >= 0 {
				paired[k], done[k], used[best] = best, true, true
			}
		}
	}
	for k, x := range sent {
		teach(e.ids, asSent, x, sent[paired[k]], answers[paired[k]])
	}
	return paired
}

// outcome is an answer's status and errorType, as a set compares them.
func outcome(status int, body []byte) string {
	out := fmt.Sprint(status)
	if doc, ok := decode(body); ok {
		if m, ok := doc.(map[string]any); ok {
			if t, ok := m["errorType"].(string); ok {
				out += " " + t
			}
		}
	}
	return out
}

// teach makes what y sent stand for what x sent, where the sandbox took
// y's request as the service took x's (both answered 2xx): each text of
// x's body the app made (not an amount, an id or a number) that y's holds
// otherwise at the same place (as it was sent: mapped by asSent). The answers to come then echo y's where
// the recording echoes x's.
func teach(ids, asSent *IDMap, x, y *Exchange, ans *Answer) {
	if x == y || x.Status/100 != 2 || ans.Status/100 != 2 {
		return
	}
	xd, ok1 := decode(x.body())
	yd, ok2 := decode(y.body())
	if !ok1 || !ok2 {
		return
	}
	var walk func(key string, a, b any)
	walk = func(key string, a, b any) {
		switch av := a.(type) {
		case map[string]any:
			if bv, ok := b.(map[string]any); ok {
				for k, v := range av {
					walk(k, v, bv[k])
				}
			}
		case []any:
			if bv, ok := b.([]any); ok && len(bv) == len(av) {
				for i := range av {
					walk(key, av[i], bv[i])
				}
			}
		case string:
			bv, ok := b.(string)
			if !ok || av == bv || isAmountKey(key) || isIDKey(key) || isUUID(av) || numeric().MatchString(av) {
				return
			}
			if mapped, ok := asSent.Get(bv); ok {
				bv = mapped
			}
			ids.Set(av, bv)
		}
	}
	walk("", xd, yd)
}

var numeric = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[+-]?[0-9]+(\.[0-9]+)?$`) })

// seen counts, for each 2xx answer, the other requests of its method and
// path answered 2xx whose effect it shows: a text their body sent and
// its own did not, found in the answer (the third capture of a race
// answers a payment that lists the two before it). It tells the order the
// service took the requests in: answers are paired in that order. With
// answers nil it counts the recorded answers, else those given.
func seen(sent []*Exchange, answers []*Answer) []int {
	body := func(k int) ([]byte, int) {
		if answers == nil {
			return sent[k].answer(), sent[k].Status
		}
		return answers[k].Body, answers[k].Status
	}
	counts := make([]int, len(sent))
	for k, x := range sent {
		ak, sk := body(k)
		if sk/100 != 2 {
			continue
		}
		own := texts(x.body())
		for j, y := range sent {
			aj, sj := body(j)
			if j == k || sj/100 != 2 || y.Method != x.Method || Template(y.Path) != Template(x.Path) || len(aj) == 0 {
				continue
			}
		texts:
			for v := range texts(y.body()) {
				if own[v] {
					continue
				}
				for _, form := range jsonForms(v) {
					if bytes.Contains(ak, form) {
						counts[k]++
						break texts
					}
				}
			}
		}
	}
	return counts
}

// texts are the strings of a JSON body the app made (not amounts, ids or
// numbers).
func texts(b []byte) map[string]bool {
	out := map[string]bool{}
	doc, ok := decode(b)
	if !ok {
		return out
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				walk(k, c)
			}
		case []any:
			for _, c := range t {
				walk(key, c)
			}
		case string:
			if !isAmountKey(key) && !isIDKey(key) && !isUUID(t) && !numeric().MatchString(t) {
				out[t] = true
			}
		}
	}
	walk("", doc)
	return out
}
