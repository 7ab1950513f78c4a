package replay

import (
	"fmt"
	"sort"
)

// elementID is an array element's "id", when it is an object with one.
func elementID(v any) (string, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	id, ok := obj["id"].(string)
	return id, ok && id != ""
}

// array compares two arrays. Elements with ids are paired through the id
// map first, the rest in order. An array that lists what the account holds
// (a payments list) leaves out, on the recording's side, what the recording
// never made (it was in the account before), and on the other side what
// the replay did not make: only what both sides made is compared, with the
// order it is listed in.
func (c *comparer) array(path, key string, want, got []any) {
	list := c.lists[path]
	pairs, lostWant, lostGot := c.pair(want, got, list)
	if !list && len(want) != len(got) {
		c.add(path, DiffLength, show(want), show(got))
	}
	last, lastW := -1, -1
	ordered := true
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].w < pairs[j].w })
	for _, p := range pairs {
		c.value(fmt.Sprintf("%s[%d]", path, p.w), key, want[p.w], got[p.g])
		// Of records made at the same instant the service keeps no
		// order (a list by created_at of checkouts sent at once).
		if p.g < last && !(lastW >= 0 && sameInstant(want[lastW], want[p.w])) {
			ordered = false
		}
		last, lastW = p.g, p.w
	}
	if (list || orderedArrays[key]) && !ordered {
		c.add(path, DiffOrder, "the recording's order", "another order")
	}
	if !list && len(want) != len(got) {
		// The length is said once; the elements one side lacks are
		// left to that line.
		return
	}
	for _, i := range lostWant {
		c.add(fmt.Sprintf("%s[%d]", path, i), DiffMissing, show(want[i]), Absent)
	}
	for _, i := range lostGot {
		c.add(fmt.Sprintf("%s[%d]", path, i), DiffExtra, Absent, show(got[i]))
	}
}

// orderedArrays are the arrays whose order the service keeps (a payment's
// captures and refunds, in the order they were made): elements paired by
// id must keep the recording's order.
var orderedArrays = map[string]bool{"captures": true, "refunds": true}

type pairing struct{ w, g int }

// pair pairs elements: by mapped id, then (outside a list) in order.
func (c *comparer) pair(want, got []any, list bool) (pairs []pairing, lostWant, lostGot []int) {
	usedGot := make([]bool, len(got))
	gotIndex := map[string]int{}
	for i, g := range got {
		if id, ok := elementID(g); ok {
			gotIndex[id] = i
		}
	}
	var open []int
	for i, w := range want {
		id, ok := elementID(w)
		if !ok {
			open = append(open, i)
			continue
		}
		if mapped, known := c.ids.Get(id); known {
			if j, there := gotIndex[mapped]; there && !usedGot[j] {
				pairs, usedGot[j] = append(pairs, pairing{i, j}), true
			} else if list {
				lostWant = append(lostWant, i)
			} else {
				open = append(open, i)
			}
			continue
		}
		if list {
			continue // not made by the replay (it was in the account before)
		}
		open = append(open, i)
	}
	j := 0
	for _, i := range open {
		if list {
			break
		}
		for j < len(got) && (usedGot[j] || c.mappedElsewhere(got[j])) {
			j++
		}
		if j == len(got) {
			lostWant = append(lostWant, i)
			continue
		}
		pairs, usedGot[j] = append(pairs, pairing{i, j}), true
	}
	for g := range got {
		if usedGot[g] {
			continue
		}
		id, ok := elementID(got[g])
		if list {
			if _, known := c.ids.Reverse(id); ok && known {
				lostGot = append(lostGot, g)
			}
			continue
		}
		lostGot = append(lostGot, g)
	}
	return pairs, lostWant, lostGot
}

// mappedElsewhere tells an element the map pairs with another recorded id:
// it is not paired in order with an element the map does not know.
func (c *comparer) mappedElsewhere(v any) bool {
	id, ok := elementID(v)
	if !ok {
		return false
	}
	_, known := c.ids.Reverse(id)
	return known
}

// sameInstant tells two records with the same created_at.
func sameInstant(a, b any) bool {
	ma, ok1 := a.(map[string]any)
	mb, ok2 := b.(map[string]any)
	if !ok1 || !ok2 {
		return false
	}
	ta, ok1 := ma["created_at"].(string)
	tb, ok2 := mb["created_at"].(string)
	return ok1 && ok2 && ta != "" && ta == tb
}
