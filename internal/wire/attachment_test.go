package wire

import "testing"

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
