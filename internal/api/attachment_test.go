package api

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCheckAttachment(t *testing.T) {
	pdf := []byte("%PDF-1.4\n" + strings.Repeat("x", 1000))
	r := bytes.NewReader(pdf)
	size, err := CheckAttachment("receipt.pdf", r)
	if err != nil || size != int64(len(pdf)) {
		t.Fatalf("pdf: %d, %v", size, err)
	}
	if pos, _ := r.Seek(0, io.SeekCurrent); pos != 0 {
		t.Errorf("not rewound: at %d", pos)
	}
	exact := append([]byte("%PDF-1.4\n"), make([]byte, MaxAttachmentBytes-9)...)
	if _, err := CheckAttachment("exact.pdf", bytes.NewReader(exact)); err != nil {
		t.Errorf("exactly 5 MB: %v", err)
	}
	for name, body := range map[string][]byte{
		"big.pdf":   append(exact, 0),
		"empty.png": nil,
		"notes.png": []byte("not a picture"),
	} {
		_, err := CheckAttachment(name, bytes.NewReader(body))
		var v *ValidationError
		if !errors.As(err, &v) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
