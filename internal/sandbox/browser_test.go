package sandbox

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is the browser the browser tests drive, headless.
const chromium = "/usr/bin/chromium"

// needBrowser skips a browser test where chromium is not installed, and
// under -short.
func needBrowser(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(chromium); err != nil {
		t.Skip("skipping the browser test: /usr/bin/chromium is not installed (apt-get install -y chromium)")
	}
	if testing.Short() {
		t.Skip("skipping the browser test in -short mode")
	}
}

// browser is the context of a headless chromium that ends within timeout
// or with the test; more adds to its options (a window size).
func browser(t *testing.T, timeout time.Duration, more ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append([]chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
	}, more...)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, timeout)
	t.Cleanup(cancelTimeout)
	return ctx
}
