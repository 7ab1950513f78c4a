package store

import (
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
)

// An unseeded id is a version-4 UUID in the RFC 4122 variant, as the
// service's are, and every id made in a later millisecond sorts after
// every id made before it: as text, too, which is how the state's indexes
// order them.
func TestUnseededIDsAreVersion4AndSortByTime(t *testing.T) {
	at := time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	var last []string // the ids of the millisecond before
	for ms := range 500 {
		var ids []string
		for range 4 {
			id := timeOrdered(at.Add(time.Duration(ms) * time.Millisecond))
			u, err := uuid.Parse(id)
			if err != nil || len(id) != 36 || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
				t.Fatalf("%s: version %v, variant %v, %v", id, u.Version(), u.Variant(), err)
			}
			if seen[id] {
				t.Fatalf("%s made twice", id)
			}
			seen[id] = true
			ids = append(ids, id)
		}
		if len(last) > 0 && slices.Min(ids) <= slices.Max(last) {
			t.Fatalf("%s, made a millisecond later, sorts before %s", slices.Min(ids), slices.Max(last))
		}
		last = ids
	}
	source := NewIDSource(0)
	if a, b := source.Next(), source.Next(); a == b {
		t.Fatalf("two ids alike: %s", a)
	}
}
