package zstd

import (
	"bytes"
	"io"
	"testing"

	kzstd "github.com/klauspost/compress/zstd"
)

// The decoder's throughput against klauspost/compress's, on the same
// frames: JSON answers such as recordings hold, and a mix of JSON and
// incompressible bytes, each 4 MiB encoded at the default level.
//
//	go test -run '^$' -bench Decode -benchtime 20x ./internal/zstd/
func BenchmarkDecode(b *testing.B) {
	for _, kind := range []string{"json", "mixed"} {
		in := sample(kind, 4<<20)
		enc := encode(b, in)
		b.Run(kind+"/bnpl", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for range b.N {
				n, err := io.Copy(io.Discard, NewReader(bytes.NewReader(enc), 8<<20))
				if err != nil || n != int64(len(in)) {
					b.Fatal(n, err)
				}
			}
		})
		b.Run(kind+"/klauspost", func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for range b.N {
				d, err := kzstd.NewReader(bytes.NewReader(enc), kzstd.WithDecoderConcurrency(1),
					kzstd.WithDecoderMaxWindow(8<<20), kzstd.WithDecoderLowmem(true))
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, d)
				d.Close()
				if err != nil || n != int64(len(in)) {
					b.Fatal(n, err)
				}
			}
		})
	}
}
