package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/bnpl-cli/bnpl/internal/api"
	"github.com/bnpl-cli/bnpl/internal/bulk"
	"github.com/bnpl-cli/bnpl/internal/cmdutil"
	"github.com/bnpl-cli/bnpl/internal/output"
)

// testFactory is a factory over buffers and an environment of its own.
func testFactory(t *testing.T) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(home, ".state"),
	}
	f := cmdutil.New("dev", "none", "unknown")
	ios, _, out, errOut := output.Test()
	f.IO = ios
	f.Getenv = func(k string) string { return env[k] }
	t.Cleanup(f.Close)
	return f, out, errOut
}

// groups lists the command path (without the root) of every command that
// holds subcommands, the root included.
func groups(c *cobra.Command, path []string, into *[][]string) {
	if c.HasSubCommands() {
		*into = append(*into, append([]string(nil), path...))
	}
	for _, sub := range c.Commands() {
		groups(sub, append(path, sub.Name()), into)
	}
}

// TestEverySubcommandTypoIsAnError walks the whole tree: a mistyped verb
// under any group must exit 2 and name the group, never print help and
// exit 0.
func TestEverySubcommandTypoIsAnError(t *testing.T) {
	f, _, _ := testFactory(t)
	var all [][]string
	groups(NewRootCmd(f), nil, &all)
	if len(all) < 8 {
		t.Fatalf("found only %d groups: %v", len(all), all)
	}
	for _, path := range all {
		name := strings.Join(append([]string{"bnpl"}, path...), " ")
		t.Run(name, func(t *testing.T) {
			f, out, errOut := testFactory(t)
			args := append(append([]string(nil), path...), "captrue", "3fa85f64-5717-4562-b3fc-2c963f66afa6")
			code := Run(context.Background(), f, args)
			if code != cmdutil.ExitUsage {
				t.Fatalf("%s captrue: exit %d, want 2\nstdout: %s\nstderr: %s", name, code, out, errOut)
			}
			want := `unknown command "captrue" for "` + name + `"`
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, errOut)
			}
			if !strings.Contains(errOut.String(), "Run '"+name+" --help' for usage.") {
				t.Errorf("stderr lacks the pointer to --help:\n%s", errOut)
			}
			if out.Len() != 0 {
				t.Errorf("stdout should be empty, got:\n%s", out)
			}

			// bnpl help for the same typo is an error too.
			f, out, errOut = testFactory(t)
			args = append(append([]string{"help"}, path...), "captrue")
			if code := Run(context.Background(), f, args); code != cmdutil.ExitUsage {
				t.Fatalf("bnpl %s: exit %d, want 2\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errOut)
			}
			if !strings.Contains(errOut.String(), `unknown help topic "captrue"`) || out.Len() != 0 {
				t.Errorf("bnpl %s:\nstdout: %s\nstderr: %s", strings.Join(args, " "), out, errOut)
			}
		})
	}
}

// Every command of the tree, the help topics included, is reached by its
// path; every list, get and remove verb answers to its aliases.
func TestAliasesAcrossTheTree(t *testing.T) {
	f, _, _ := testFactory(t)
	root := NewRootCmd(f)
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if want, ok := verbAliases[sub.Name()]; ok && c.HasParent() {
				seen++
				for _, a := range want {
					got, _, err := root.Find(append(strings.Fields(strings.TrimPrefix(c.CommandPath(), "bnpl")), a))
					if err != nil || got != sub {
						t.Errorf("%s %s does not reach %s", c.CommandPath(), a, sub.CommandPath())
					}
				}
			}
			walk(sub)
		}
	}
	walk(root)
	if seen < 10 {
		t.Errorf("only %d list/get/remove verbs found", seen)
	}
	if got, _, err := root.Find([]string{"profiles", "switch"}); err != nil || got.Name() != "use" {
		t.Errorf("profiles switch: %v %v", got, err)
	}
	for _, topic := range []string{"exit-codes", "environment", "formatting"} {
		c, _, err := root.Find([]string{topic})
		if err != nil || !c.IsAdditionalHelpTopicCommand() {
			t.Errorf("%s is not a help topic: %v", topic, err)
		}
	}
}

// bnpl help environment names every BNPL_ variable the code reads.
func TestEnvironmentTopicIsComplete(t *testing.T) {
	var text string
	for _, h := range helpTopics {
		if h.name == "environment" {
			text = h.long
		}
	}
	for _, v := range []string{"BNPL_PROFILE", "BNPL_LIVE", "BNPL_SECRET_KEY", "BNPL_MERCHANT_CODE", "BNPL_REGION", "BNPL_BASE_URL", "BNPL_SANDBOX_URL", "BNPL_OUTPUT", "BNPL_TIME", "BNPL_DEBUG"} {
		if !strings.Contains(text, "  "+v+" ") {
			t.Errorf("bnpl help environment does not explain %s", v)
		}
	}
	// Any BNPL_ variable the sources read must be among them.
	found := map[string]bool{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "docs" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range envVar.FindAllString(string(b), -1) {
			found[strings.Trim(m, `"`)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) < 8 {
		t.Fatalf("found only %v in the sources", found)
	}
	for v := range found {
		if !strings.Contains(text, "  "+v+" ") {
			t.Errorf("the code reads %s, which bnpl help environment does not explain", v)
		}
	}
}

var envVar = regexp.MustCompile(`"BNPL_[A-Z_]+"`)

func TestUnknownSubcommandSuggests(t *testing.T) {
	f, _, errOut := testFactory(t)
	if code := Run(context.Background(), f, []string{"payments", "captrue", "x"}); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errOut.String(), "Did you mean capture?") {
		t.Errorf("no suggestion:\n%s", errOut)
	}
}

// A usage error is three short lines, not the usage text.
func TestUsageErrorIsShort(t *testing.T) {
	f, _, errOut := testFactory(t)
	if code := Run(context.Background(), f, []string{"payments", "get"}); code != cmdutil.ExitUsage {
		t.Fatalf("exit %d", code)
	}
	got := errOut.String()
	if strings.Contains(got, "Flags:") || strings.Contains(got, "Usage:") {
		t.Errorf("usage text printed:\n%s", got)
	}
	if !strings.HasSuffix(got, "Run 'bnpl payments get --help' for usage.\n") {
		t.Errorf("no pointer to help:\n%s", got)
	}
	if n := strings.Count(got, "\n"); n > 3 {
		t.Errorf("%d lines:\n%s", n, got)
	}
}

// The JSON error object is for scripts: written with -o json when stderr is
// not a terminal, not when a person reads stderr.
func TestJSONErrorOnlyOffTerminal(t *testing.T) {
	for _, tty := range []bool{false, true} {
		f, _, errOut := testFactory(t)
		f.IO.SetStderrTTY(tty)
		Run(context.Background(), f, []string{"payments", "get", "not-a-uuid", "-o", "json"})
		hasJSON := strings.Contains(errOut.String(), `"exit_code":2`)
		if hasJSON == tty {
			t.Errorf("stderr tty=%v: JSON object written=%v\n%s", tty, hasJSON, errOut)
		}
	}
}

// A help topic reads on an 80-column terminal without wrapping.
func TestHelpTopicsFit80Columns(t *testing.T) {
	for _, h := range helpTopics {
		for i, line := range strings.Split(h.long, "\n") {
			if n := len([]rune(line)); n > 80 {
				t.Errorf("bnpl help %s, line %d is %d columns: %s", h.name, i+1, n, line)
			}
		}
	}
}

// TestOneNounTreeMatchesTheWholeTree: a command line that starts with a
// noun builds that noun alone; every command under it reads the same --help,
// and a typo under it gets the same error, as with the whole tree.
func TestOneNounTreeMatchesTheWholeTree(t *testing.T) {
	run := func(build func(*cmdutil.Factory) *cobra.Command, args []string) (string, string, error) {
		f, out, errOut := testFactory(t)
		root := build(f)
		root.SetArgs(args)
		err := root.ExecuteContext(context.Background())
		return out.String(), errOut.String(), err
	}
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			p := append(append([]string(nil), path...), sub.Name())
			paths = append(paths, p)
			walk(sub, p)
		}
	}
	f, _, _ := testFactory(t)
	walk(NewRootCmd(f), nil)
	checked := 0
	for _, p := range paths {
		noun := onlyNoun(p)
		if noun == "" {
			continue // help, completion and topics: the whole tree builds them
		}
		one := func(f *cmdutil.Factory) *cobra.Command { return newRoot(f, noun) }
		for _, args := range [][]string{append(p, "--help"), append(p, "captrue")} {
			wantOut, wantErr, wantE := run(NewRootCmd, args)
			gotOut, gotErr, gotE := run(one, args)
			if gotOut != wantOut || gotErr != wantErr || (gotE == nil) != (wantE == nil) || (gotE != nil && gotE.Error() != wantE.Error()) {
				t.Errorf("bnpl %s differs with the one-noun tree:\n got %q %q %v\nwant %q %q %v", strings.Join(args, " "), gotOut, gotErr, gotE, wantOut, wantErr, wantE)
			}
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d commands compared", checked)
	}
}

// Every exit code reaches a script as one JSON object on stderr and
// nothing else, whatever error carries it: the codes a script test cannot
// reach through the binary (143, a Silent failure, a prompt's Ctrl-C, a
// cancelled context) are driven through handleError here.
func TestEveryExitCodeIsOneJSONObject(t *testing.T) {
	cases := []struct {
		code int
		err  error
	}{
		{1, errors.New("boom")},
		{1, &cmdutil.Silent{Code: 1}},
		{2, cmdutil.Usagef("bad flag")},
		{2, cmdutil.Refuse("do this", "refused")},
		{3, &api.APIError{Status: 400, ErrorType: "bad_data", Body: []byte(`{"status":"error","errorType":"bad_data"}`)}},
		{4, &api.APIError{Status: 401, ErrorType: "not_authorized"}},
		{5, &api.APIError{Status: 403, ErrorType: "no_permission"}},
		{6, &api.APIError{Status: 404, ErrorType: "not_found"}},
		{7, &api.APIError{Status: 409, ErrorType: "conflict"}},
		{8, &api.APIError{Status: 429, Body: []byte("slow down")}},
		{9, &api.APIError{Status: 502, Body: []byte("<html>bad gateway</html>")}},
		{10, &api.NetworkError{Op: "GET /api/v2/payments", Err: errors.New("connection reset")}},
		{11, &bulk.RunError{Op: "capture", Summary: bulk.Summary{Total: 2, Failed: 1}}},
		{130, cmdutil.ErrInterrupted},
		{130, context.Canceled},
		{143, &bulk.RunError{Op: "capture", Summary: bulk.Summary{Total: 2, Interrupted: true}, Terminated: true}},
	}
	for _, tc := range cases {
		f, out, errOut := testFactory(t)
		f.IO.ScriptErrors()
		_, _ = f.IO.ErrOut.Write([]byte("a notice\n"))
		root := newRoot(f, "")
		if got := handleError(f, root, []string{"payments", "list"}, tc.err); got != tc.code {
			t.Errorf("%T: exit %d, want %d", tc.err, got, tc.code)
		}
		dec := json.NewDecoder(bytes.NewReader(errOut.Bytes()))
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			t.Errorf("%T: stderr is not JSON: %v\n%s", tc.err, err, errOut)
			continue
		}
		if dec.More() || !strings.HasSuffix(errOut.String(), "}\n") || strings.Count(errOut.String(), "\n") != 1 {
			t.Errorf("%T: stderr holds more than one object:\n%s", tc.err, errOut)
		}
		if obj["exit_code"] != float64(tc.code) || obj["error"] == "" {
			t.Errorf("%T: object %v, want exit_code %d", tc.err, obj, tc.code)
		}
		for k := range obj {
			if strings.ToLower(k) != k {
				t.Errorf("%T: key %q is not snake_case", tc.err, k)
			}
		}
		if out.Len() != 0 {
			t.Errorf("%T: wrote to stdout: %q", tc.err, out)
		}
	}
}

// The arguments decide the script contract before cobra parses them.
func TestScriptErrorsFromArguments(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	none := env(nil)
	for _, tc := range []struct {
		args []string
		get  func(string) string
		want bool
	}{
		{[]string{"payments", "list", "-o", "json"}, none, true},
		{[]string{"payments", "list", "-ojsonl"}, none, true},
		{[]string{"payments", "list", "--output=json"}, none, true},
		{[]string{"payments", "list", "--jq", ".id"}, none, true},
		{[]string{"payments", "list", "-qo", "json"}, none, true},
		{[]string{"payments", "list", "-o", "csv"}, none, false},
		{[]string{"payments", "list"}, env(map[string]string{"BNPL_OUTPUT": "json"}), true},
		{[]string{"payments", "list", "-o", "table"}, env(map[string]string{"BNPL_OUTPUT": "json"}), false},
		{[]string{"payments", "list", "-o", "json", "--debug"}, none, false},
		{[]string{"payments", "list", "-o", "json"}, env(map[string]string{"BNPL_DEBUG": "1"}), false},
		{[]string{"api", "GET", "/x", "--", "-o", "json"}, none, false},
	} {
		if got := scriptErrors(tc.args, tc.get); got != tc.want {
			t.Errorf("scriptErrors(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}
