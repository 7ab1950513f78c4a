package cmdutil

import "testing"

func TestClosest(t *testing.T) {
	words := []string{"authorized", "closed", "rejected", "created", "expired", "captured", "refunded", "cancelled", "new"}
	for _, c := range []struct{ typed, want string }{
		{"clsoed", "closed"},
		{"CLOSED", "closed"},
		{"autorized", "authorized"},
		{"refundd", "refunded"},
		{"pending", ""},
		{"xyz", ""},
	} {
		if got := Closest(c.typed, words); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.typed, got, c.want)
		}
	}
	if EditDistance("kitten", "sitting") != 3 {
		t.Error("kitten/sitting")
	}
}
