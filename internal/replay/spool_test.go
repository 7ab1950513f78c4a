package replay

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/har"
)

// harOf is a HAR document of entries (their JSON) recorded against
// http://svc.
func harOf(entries ...string) string {
	return `{"log":{"version":"1.2","creator":{"name":"x","version":"1"},"_bnpl":{"target":"http://svc"},"entries":[` +
		strings.Join(entries, ",") + `]}}`
}

func entryOf(reqHeaders, reqBody, respHeaders, answer string) string {
	return `{"startedDateTime":"2026-01-02T03:04:05.000000Z","time":1,` +
		`"request":{"method":"POST","url":"http://svc/api/v2/checkout","headers":[` + reqHeaders + `],"postData":{"mimeType":"application/json","text":` + reqBody + `}},` +
		`"response":{"status":200,"headers":[` + respHeaders + `],"content":{"mimeType":"application/json","text":` + answer + `}}}`
}

// A loaded recording holds its bodies in a private temporary file, not
// in memory: each reads back as recorded, the file is 0600 and (where the
// system allows) already gone from its directory, and closing the
// recording lets it go; only the headers a replay uses are kept.
func TestLoadKeepsBodiesInAPrivateFile(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	doc := harOf(entryOf(`{"name":"Authorization","value":"Bearer sk_test_****dbox"},{"name":"User-Agent","value":"app/1"},{"name":":authority","value":"svc"}`,
		`"{\"payment\":{\"amount\":\"100.00\"}}"`, ``, `"{\"id\":\"p1\"}"`))
	rec, err := LoadFrom("r.har", strings.NewReader(doc), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := rec.Exchanges[0]
	if x.Body != nil || x.Answer != nil {
		t.Fatal("the bodies were kept in memory")
	}
	if string(x.body()) != `{"payment":{"amount":"100.00"}}` || string(x.answer()) != `{"id":"p1"}` {
		t.Fatalf("read back %q and %q", x.body(), x.answer())
	}
	if x.Header.Get("Authorization") != "Bearer sk_test_****dbox" || len(x.Header) != 1 {
		t.Fatalf("headers kept: %v", x.Header)
	}
	f := rec.bodies.f
	if f == nil {
		t.Fatal("no temporary file was made")
	}
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if info.Mode().Perm() != 0o600 {
			t.Errorf("the bodies' file is %v", info.Mode().Perm())
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
			t.Errorf("the bodies' file is still named in its directory: %v", left)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if x.body() != nil || rec.bodies.failed() == nil {
		t.Error("a closed recording's bodies still read")
	}
}

// Where no temporary file can be made, the bodies stay in memory and the
// replay goes on.
func TestLoadWithoutATemporaryDirectory(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "absent"))
	rec, err := LoadFrom("r.har", strings.NewReader(harOf(entryOf(``, `"{}"`, ``, `"{\"id\":\"p1\"}"`))), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if rec.bodies.f != nil || string(rec.Exchanges[0].answer()) != `{"id":"p1"}` {
		t.Fatalf("%v %q", rec.bodies.f, rec.Exchanges[0].answer())
	}
}

// A small file of compressed bodies that decode to far more than it
// holds is refused, before it fills the disk.
func TestLoadBoundsDecodedBodies(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	defer func(was int64) { spoolSlack = was }(spoolSlack)
	spoolSlack = 6 << 20
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(bytes.Repeat([]byte(" "), 4<<20))
	zw.Close()
	bomb := `"` + base64.StdEncoding.EncodeToString(zipped.Bytes()) + `"`
	e := strings.Replace(entryOf(``, `"{}"`, `{"name":"Content-Encoding","value":"gzip"}`, bomb), `"text":`+bomb, `"encoding":"base64","text":`+bomb, 1)
	doc := harOf(e, e)
	_, err := LoadFrom("bomb.har", strings.NewReader(doc), LoadOptions{})
	var le *har.LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "bomb.har holds more than") || !strings.Contains(err.Error(), "decoded bodies") {
		t.Fatalf("%v", err)
	}
	if len(doc) > 64<<10 {
		t.Fatalf("the file is %d bytes: not a small one", len(doc))
	}
	rec, err := LoadFrom("one.har", strings.NewReader(harOf(e)), LoadOptions{})
	if err != nil {
		t.Fatalf("one body within the bound was refused: %v", err)
	}
	rec.Close()
}

// A long recording's sandbox keeps its state in a private temporary file
// (removed on close): the verdicts are the ones of a sandbox in memory.
func TestVerifyWithTheStateInAFile(t *testing.T) {
	rec := recordExamples(t)
	inMemory := verify(t, rec)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	defer func(was int) { fileStateFrom = was }(fileStateFrom)
	fileStateFrom = 1
	target, closeIt, err := Embedded(rec)
	if err != nil {
		t.Fatal(err)
	}
	dirs, _ := filepath.Glob(filepath.Join(tmp, "bnpl-verify-*"))
	if len(dirs) != 1 {
		t.Fatalf("state directories: %v", dirs)
	}
	if info, err := os.Stat(dirs[0]); err != nil || (runtime.GOOS != "windows" && info.Mode().Perm() != 0o700) {
		t.Errorf("the state's directory: %v %v", info.Mode(), err)
	}
	inFile, err := NewEngine(rec, target).Verify(context.Background())
	closeIt()
	if err != nil {
		t.Fatal(err)
	}
	if len(inFile.Differences) != len(inMemory.Differences) || inFile.Compared != inMemory.Compared ||
		inFile.NotificationsCompared != inMemory.NotificationsCompared || len(inFile.Actions) != len(inMemory.Actions) {
		t.Errorf("in a file: %d differences, %d and %d compared, %d actions; in memory: %d, %d and %d, %d:%s",
			len(inFile.Differences), inFile.Compared, inFile.NotificationsCompared, len(inFile.Actions),
			len(inMemory.Differences), inMemory.Compared, inMemory.NotificationsCompared, len(inMemory.Actions), describe(inFile.Differences))
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
