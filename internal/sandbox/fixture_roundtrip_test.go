package sandbox

import (
	"context"
	"path/filepath"
	"testing"
)

// What export writes, seed takes back into a sandbox with the same
// settings: here one served with loopback receivers admitted and webhook
// chaos, holding a loopback webhook, live disputes in each status and an
// attachment. Exported, reset and seeded, it exports the same bytes,
// YAML and JSON alike.
func TestFixtureRoundTripsEveryState(t *testing.T) {
	spec, err := ParseFaultSpec("dup=0.5,late=2s")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, Options{StatePath: filepath.Join(t.TempDir(), "state.db"), Serve: true,
		AllowLocalWebhooks: true, Faults: spec, Seed: 5})
	ctx := context.Background()
	if _, err := e.sb.SeedFixture(ctx, "every-state.yaml", everyState(t), 7); err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{"http://127.0.0.1:9/hook", "http://localhost:9/other"} {
		if r := e.call("POST", "/api/v1/webhooks", aeTest, nil, map[string]any{"url": url, "is_test": true}); r.status != 200 {
			t.Fatalf("registering %s: %d %s", url, r.status, r.body)
		}
	}
	if r := e.upload("attachment", "receipt.png", pngBytes); r.status != 200 {
		t.Fatalf("attachment: %d %s", r.status, r.body)
	}
	for _, asJSON := range []bool{false, true} {
		first := e.exportBytes(asJSON)
		if err := e.sb.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := e.sb.SeedFixture(ctx, "export", first, 0); err != nil {
			t.Fatalf("the export does not seed back (json %v): %v", asJSON, err)
		}
		if again := e.exportBytes(asJSON); string(again) != string(first) {
			t.Fatalf("seeded back, the export differs (json %v):\n--- first\n%s\n--- again\n%s", asJSON, first, again)
		}
	}
}

func (e *env) exportBytes(asJSON bool) []byte {
	e.t.Helper()
	fx, err := e.sb.ExportFixture(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	b, err := MarshalFixture(fx, asJSON)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}
