package api

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestAttachmentType(t *testing.T) {
	cases := []struct {
		head []byte
		kind string
		ok   bool
	}{
		{[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "image/png", true},
		{[]byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), "image/jpeg", true},
		{[]byte("%PDF-1.7\n"), "application/pdf", true},
		{[]byte("GIF89a\x01\x00"), "image/gif", false},
		{[]byte("PK\x03\x04"), "application/zip", false},
		{[]byte("Delivered on 2 May\n"), "text/plain", false},
		{[]byte("<html><body>%PDF-1.4</body></html>"), "text/html", false},
		{[]byte(" %PDF-1.4"), "text/plain", false}, // the magic must come first
	}
	for _, c := range cases {
		kind, ok := AttachmentType(c.head)
		if kind != c.kind || ok != c.ok {
			t.Errorf("%q: %s %t, want %s %t", c.head, kind, ok, c.kind, c.ok)
		}
	}
}

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
