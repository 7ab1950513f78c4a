package terminal

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clipperhouse/displaywidth"
	"github.com/creack/pty"
)

// These tests look at bnpl on a terminal 80 columns wide, as the kernel
// reports it: help, tables and progress lines must fit it and leave it
// clean.

// onPTYAt runs bnpl with stdin and stderr on a terminal cols wide, and
// stdout on it too, or, when pipe is set, into a pipe whose reader copies
// what it reads to pipe and onto the same terminal, as `| cat` does. It
// returns the screen the terminal shows and the exit code.
func onPTYAt(t *testing.T, env []string, cols uint16, pipe io.Writer, args ...string) (string, int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bnpl", args...)
	cmd.Env = env
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, tty
	term := &terminal{changed: make(chan struct{}, 1)}
	exited := make(chan struct{})
	copied := make(chan struct{})
	if pipe != nil {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = w
		defer r.Close()
		go func() {
			defer close(copied)
			defer tty.Close()
			// A reader slower than bnpl: it prints the first rows once
			// bnpl has drawn on the terminal again after them, or ended.
			buf := make([]byte, 64<<10)
			n, err := r.Read(buf)
			if err != nil {
				return
			}
			seen := term.len()
			for !term.drawnSince(seen) {
				select {
				case <-term.changed:
				case <-exited:
					seen = -1
				}
				if seen < 0 {
					break
				}
			}
			_, _ = pipe.Write(buf[:n])
			_, _ = tty.Write(buf[:n])
			_, _ = io.Copy(io.MultiWriter(pipe, tty), r)
		}()
		defer w.Close()
	} else {
		close(copied)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if pipe != nil {
		// The reader alone writes on the terminal from now on, and
		// closes it once the pipe is drained.
		cmd.Stdout.(*os.File).Close()
	} else {
		tty.Close()
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(term, ptmx) // ends with EIO once bnpl is gone
	}()
	done := make(chan error, 1)
	go func() { err := cmd.Wait(); close(exited); done <- err }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("bnpl %s did not end", strings.Join(args, " "))
	}
	<-copied
	<-read
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	} else if werr != nil {
		t.Fatal(werr)
	}
	return screen(term.String()), code
}

// terminal is what bnpl wrote on the terminal, told as it comes.
type terminal struct {
	mu      sync.Mutex
	raw     bytes.Buffer
	changed chan struct{}
}

func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.raw.Write(p)
	t.mu.Unlock()
	select {
	case t.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (t *terminal) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.raw.Len()
}

// drawnSince reports whether text (not only erasing) came after offset.
func (t *terminal) drawnSince(offset int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	after := strings.ReplaceAll(t.raw.String()[offset:], "\r\x1b[K", "")
	return strings.TrimSpace(after) != ""
}

func (t *terminal) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.raw.String()
}

// screen is what a terminal shows after text: a carriage return goes back
// to the start of the line, ESC [ K erases the rest of it, other escape
// sequences show nothing.
func screen(text string) string {
	var lines []string
	var cur []rune
	col := 0
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\n':
			lines = append(lines, string(cur))
			cur, col = nil, 0
		case r == '\r':
			col = 0
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
				j++
			}
			if j < len(rs) && rs[j] == 'K' {
				cur = cur[:min(col, len(cur))]
			}
			i = j
		default:
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
		}
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return strings.Join(lines, "\n")
}

// wideLines lists the lines of s wider than cols: none may be, help's
// examples included (they go on with shell continuations).
func wideLines(s string, cols int) []string {
	var wide []string
	for _, line := range strings.Split(s, "\n") {
		if displaywidth.String(line) > cols {
			wide = append(wide, line)
		}
	}
	return wide
}

func TestHelpFitsEightyColumnsOnPTY(t *testing.T) {
	env := ptyEnv(t)
	for _, args := range [][]string{
		{"--help"},
		{"payments", "list", "--help"},
		{"payments", "capture", "--help"},
		{"checkout", "create", "--help"},
		{"sandbox", "serve", "--help"},
		{"help", "formatting"},
	} {
		got, code := onPTYAt(t, env, 80, nil, args...)
		if code != 0 {
			t.Fatalf("bnpl %s: exit %d\n%s", strings.Join(args, " "), code, got)
		}
		if !strings.Contains(got, "Usage:") && args[0] != "help" {
			t.Fatalf("bnpl %s shows no help:\n%s", strings.Join(args, " "), got)
		}
		if wide := wideLines(got, 80); len(wide) > 0 {
			t.Errorf("bnpl %s at 80 columns: %d lines wider:\n%s", strings.Join(args, " "), len(wide), strings.Join(wide, "\n"))
		}
	}
}

// At 80 columns a payment's timeline and the sandbox's log fit, times and
// ids whole; a --columns list too wide even wrapped shows records.
func TestTablesAtEightyColumnsOnPTY(t *testing.T) {
	env := ptyEnv(t)
	id := authorizedPayment(t, env)
	capID := bnplOut(t, env, "payments", "capture", id, "--amount", "100.00", "--reference-id", "capture-for-the-shoes-and-the-jacket", "--jq", ".captures[0].id")
	bnplExit(t, env, "payments", "get", "3fa85f64-5717-4562-b3fc-2c963f66afa6")

	timeline, code := onPTYAt(t, env, 80, nil, "payments", "timeline", id, "--time", "utc")
	if code != 0 {
		t.Fatalf("timeline: exit %d\n%s", code, timeline)
	}
	for _, want := range []string{capID, "capture-for-the-shoes-and-the-jacket", "created", "authorized", "captured"} {
		if !strings.Contains(timeline, want) {
			t.Errorf("the timeline at 80 lacks %q whole:\n%s", want, timeline)
		}
	}
	if wide := wideLines(timeline, 80); len(wide) > 0 || strings.Contains(timeline, "did not fit") {
		t.Errorf("the timeline is wider than 80:\n%s", timeline)
	}

	logs, code := onPTYAt(t, env, 80, nil, "sandbox", "logs", "--time", "utc")
	if code != 0 {
		t.Fatalf("logs: exit %d\n%s", code, logs)
	}
	for _, want := range []string{"ERROR", "no such", "3fa85f64-5717-4562-b3fc-2c963f66afa6", id} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log at 80 lacks %q whole:\n%s", want, logs)
		}
	}
	if wide := wideLines(logs, 80); len(wide) > 0 {
		t.Errorf("the log is wider than 80:\n%s", strings.Join(wide, "\n"))
	}

	// The 103-column table: too wide even wrapped, it is shown as
	// records, every field whole, no line wider than the terminal.
	list, code := onPTYAt(t, env, 80, nil, "payments", "list", "-L", "3", "--columns", "id,status,buyer.name,captured,refunded,created,order.reference_id")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s", code, list)
	}
	for _, want := range []string{"ID ", "STATUS ", "BUYER.NAME ", "Layla Haddad", "CAPTURED ", "100.00 AED", "REFERENCE ", "ORDER-1001", "CREATED ", id} {
		if !strings.Contains(list, want) {
			t.Errorf("the list at 80 lacks %q:\n%s", want, list)
		}
	}
	if strings.Contains(list, "…") || strings.Contains(list, "did not fit") {
		t.Errorf("a named column was cut, or a notice said so:\n%s", list)
	}
	if wide := wideLines(list, 80); len(wide) > 0 {
		t.Errorf("the list is wider than 80:\n%s", strings.Join(wide, "\n"))
	}
}

// `payments list --buyer X | cat`: stderr is the terminal, stdout a pipe
// whose reader prints on that terminal too. No progress line is left on
// it, nor drawn among the rows.
func TestPipedBuyerSearchLeavesNoProgressOnPTY(t *testing.T) {
	env := ptyEnv(t)
	// An authorized payment, which the search meets first, and two new
	// ones it meets in a later set of statuses, after drawing its line
	// again.
	authorizedPayment(t, env)
	for range 2 {
		bnplOut(t, env, "checkout", "create", "--input", checkoutFile(t), "-q")
	}
	var rows bytes.Buffer
	shown, code := onPTYAt(t, env, 80, &rows, "payments", "list", "--buyer", "layla")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, shown)
	}
	if n := strings.Count(rows.String(), "\tCREATED\t") + strings.Count(rows.String(), "\tAUTHORIZED\t"); n != 3 {
		t.Fatalf("the pipe got %d payments: %q", n, rows.String())
	}
	if strings.Contains(shown, "searching") || strings.Contains(shown, "page ") {
		t.Errorf("a progress line stays on the terminal:\n%s", shown)
	}
}

// `bnpl api --paginate | cat`: the page counter is taken away before the
// first record goes to the pipe and is not drawn again among the records
// its reader prints on the same terminal.
func TestPipedAPIPaginateLeavesNoProgressOnPTY(t *testing.T) {
	env := ptyEnv(t)
	for range 8 {
		authorizedPayment(t, env)
	}
	// One item a page, read one page at a time: the records fill the
	// output's buffer and reach the pipe while pages are still read.
	var records bytes.Buffer
	shown, code := onPTYAt(t, env, 80, &records, "api", "GET", "/api/v2/payments", "-f", "limit=1", "--paginate", "--concurrency", "1", "--jsonl")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, shown)
	}
	if n := strings.Count(records.String(), "\n"); n != 8 {
		t.Fatalf("the pipe got %d records: %q", n, records.String())
	}
	if strings.Contains(shown, "page ") {
		t.Errorf("a progress line stays on the terminal:\n%s", shown)
	}
}
