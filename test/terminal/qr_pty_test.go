package terminal

import (
	"strings"
	"testing"
)

// A QR code cannot be wrapped: on a terminal too narrow for it, checkout
// qr prints the checkout URL and says how to get the code, rather than a
// drawing the terminal folds into something no phone can scan. Where it
// fits, it is drawn.
func TestCheckoutQRNarrowTerminalOnPTY(t *testing.T) {
	env := ptyEnv(t)
	session := bnplOut(t, env, "-q", "checkout", "create", "--input", "../../testdata/checkout.json", "--jq", ".id")
	url := "http://127.0.0.1:8700/_sandbox/hpp/" + session

	shown, code := onPTYAt(t, env, 40, nil, "checkout", "qr", session)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, shown)
	}
	// The URL is data a person copies: the terminal folds it, whole.
	for _, line := range wideLines(shown, 40) {
		if line != url {
			t.Errorf("a line wider than 40: %q", line)
		}
	}
	if strings.Contains(shown, "█") || !strings.Contains(shown, "--png") {
		t.Errorf("want no drawing and the way to the image:\n%s", shown)
	}
	if !strings.Contains(strings.ReplaceAll(shown, "\n", ""), url) {
		t.Errorf("the checkout URL is missing:\n%s", shown)
	}

	shown, code = onPTYAt(t, env, 80, nil, "checkout", "qr", session)
	if code != 0 || !strings.Contains(shown, "█") || !strings.Contains(shown, url) {
		t.Errorf("at 80 columns, want the drawing and the URL (exit %d):\n%s", code, shown)
	}
	if wide := wideLines(shown, 80); len(wide) > 0 {
		t.Errorf("lines wider than 80:\n%s", strings.Join(wide, "\n"))
	}
}
