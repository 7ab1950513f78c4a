package checkout

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The built-in examples are the repository's example files, byte for byte:
// the README's two ways (from a clone, from a package) send the same.
func TestExamplesAreTheTestdataFiles(t *testing.T) {
	for _, name := range []string{"checkout.json", "checkout-kwd.json", "checkout-sar.json"} {
		built, err := examples.ReadFile("examples/" + name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(built, want) {
			t.Errorf("cmd/checkout/examples/%s differs from testdata/%s: copy it again", name, name)
		}
	}
}

func TestExampleName(t *testing.T) {
	cases := map[string][]string{
		"examples/checkout.json":     nil,
		"examples/checkout-kwd.json": {"KWD"},
		"examples/checkout-sar.json": {"SAR"},
	}
	for want, currencies := range cases {
		if got := exampleName(currencies); got != want {
			t.Errorf("exampleName(%v) = %s, want %s", currencies, got, want)
		}
	}
	if got := exampleName([]string{"AED", "KWD"}); got != "examples/checkout.json" {
		t.Errorf("a region of two currencies: %s", got)
	}
}
