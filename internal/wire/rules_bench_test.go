package wire

import (
	"os"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/jsontree"
)

// The checkout's rules over the README's example, its tree decoded once
// as the sandbox decodes it.
func BenchmarkCheckCheckoutTree(b *testing.B) {
	body, err := os.ReadFile("../../testdata/checkout.json")
	if err != nil {
		b.Fatal(err)
	}
	doc, err := jsontree.DecodeDoc(body)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if f := CheckCheckoutTree(body, doc, nil); len(f) != 0 {
			b.Fatal(f)
		}
	}
}
