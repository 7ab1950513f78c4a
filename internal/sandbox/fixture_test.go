package sandbox

import (
	"context"
	"os"
	"testing"
)

func everyState(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/fixtures/every-state.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The shipped fixture reaches every state, and the export of the seeded
// state is the fixture's normalised form.
func TestFixtureEveryStateSeedsAndExportsItsNormalisedForm(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	fx, err := e.sb.SeedFixture(ctx, "every-state.yaml", everyState(t), 7)
	if err != nil {
		t.Fatal(err)
	}
	want, err := MarshalFixture(fx, false)
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.sb.ExportFixture(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalFixture(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("export differs from the normalised fixture:\n--- export\n%s\n--- normalised\n%s", got, want)
	}
	t.Logf("%s", got)
}
