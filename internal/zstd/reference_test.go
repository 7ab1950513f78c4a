package zstd

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The reference implementation's command-line tool writes what the
// reference encoder chooses (treeless literals, repeated tables, long
// matches) at its levels and window sizes; each must decode here. CI
// installs the tool (.ci/run); elsewhere the test is skipped without it.
func TestDecodesReferenceEncoder(t *testing.T) {
	tool, err := exec.LookPath("zstd")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("the zstd tool is needed under CI: .ci/run installs it")
		}
		t.Skip("no zstd tool on PATH")
	}
	dir := t.TempDir()
	inputs := map[string][]byte{"json": sample("json", 1<<20), "mixed": sample("mixed", 3<<19), "small": sample("json", 700)}
	if raceEnabled {
		inputs["mixed"] = sample("mixed", 600<<10)
	}
	for name, in := range inputs {
		src := filepath.Join(dir, name)
		if err := os.WriteFile(src, in, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"-1"}, {"-3", "--no-check"}, {"-9", "--no-content-size"}, {"-19"},
			{"--fast=5"}, {"-3", "--long=23"}, {"-12", "--no-check", "--no-content-size"},
		} {
			cmd := exec.Command(tool, append([]string{"-q", "-c"}, append(args, src)...)...)
			enc, err := cmd.Output()
			if err != nil {
				t.Fatalf("zstd %v: %v", args, err)
			}
			got, err := decodeAll(enc, 8<<20)
			if err != nil || !bytes.Equal(got, in) {
				t.Errorf("%s by zstd %v: %d bytes in, %d out, err %v", name, args, len(in), len(got), err)
			}
		}
	}
	// Frames written one after the other by separate runs decode as one stream.
	var cat bytes.Buffer
	for i := range 3 {
		enc, err := exec.Command(tool, "-q", "-c", fmt.Sprintf("-%d", 1+i*5), filepath.Join(dir, "small")).Output()
		if err != nil {
			t.Fatal(err)
		}
		cat.Write(enc)
	}
	if got, err := decodeAll(cat.Bytes(), 8<<20); err != nil || !bytes.Equal(got, bytes.Repeat(inputs["small"], 3)) {
		t.Errorf("three frames: %d bytes, err %v", len(got), err)
	}
}
