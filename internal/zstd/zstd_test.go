package zstd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	kzstd "github.com/klauspost/compress/zstd"
)

// The encoder is klauspost/compress's, used by the tests only: what it
// writes at every level, window size and frame layout must decode here
// to exactly what went in.

// sample makes deterministic inputs of the kinds recordings hold.
func sample(kind string, n int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), uint64(len(kind))))
	var b bytes.Buffer
	switch kind {
	case "json":
		for b.Len() < n {
			fmt.Fprintf(&b, `{"id":"pay_%08x","amount":"%d.%02d","currency":"%s","status":"%s","items":[{"sku":"A-%d","qty":%d}]},`,
				r.Uint32(), r.IntN(10000), r.IntN(100), []string{"AED", "KWD", "SAR"}[r.IntN(3)],
				[]string{"captured", "authorized", "refunded"}[r.IntN(3)], r.IntN(500), r.IntN(9)+1)
		}
	case "random":
		for b.Len() < n {
			b.WriteByte(byte(r.Uint32()))
		}
	case "runs":
		for b.Len() < n {
			b.Write(bytes.Repeat([]byte{byte(r.IntN(4))}, r.IntN(3000)))
		}
	case "mixed":
		for b.Len() < n {
			if r.IntN(2) == 0 {
				b.Write(sample("random", 1+r.IntN(5000)))
			} else {
				b.Write(sample("json", 1+r.IntN(20000)))
			}
		}
	}
	return b.Bytes()[:n]
}

func encode(t testing.TB, in []byte, opts ...kzstd.EOption) []byte {
	t.Helper()
	e, err := kzstd.NewWriter(nil, append([]kzstd.EOption{kzstd.WithEncoderConcurrency(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	return e.EncodeAll(in, nil)
}

// encodeStream writes in through the streaming encoder, which makes
// frames without a content size, in many blocks.
func encodeStream(t testing.TB, in []byte, opts ...kzstd.EOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	e, err := kzstd.NewWriter(&buf, append([]kzstd.EOption{kzstd.WithEncoderConcurrency(1)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	for len(in) > 0 {
		n := min(len(in), 50000)
		if _, err := e.Write(in[:n]); err != nil {
			t.Fatal(err)
		}
		in = in[n:]
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodeAll(b []byte, maxWindow int) ([]byte, error) {
	return io.ReadAll(NewReader(bytes.NewReader(b), maxWindow))
}

var levels = []kzstd.EncoderLevel{kzstd.SpeedFastest, kzstd.SpeedDefault, kzstd.SpeedBetterCompression, kzstd.SpeedBestCompression}

func TestDecodesEveryLevelAndWindow(t *testing.T) {
	sizes := map[string][]int{"json": {0, 1, 100, 5000, 300 << 10, 1 << 20}, "random": {17, 200 << 10}, "runs": {600 << 10}, "mixed": {1 << 20}}
	for kind, ns := range sizes {
		for _, n := range ns {
			in := sample(kind, n)
			for _, lvl := range levels {
				for _, w := range []int{1 << 10, 64 << 10, 1 << 20, 8 << 20} {
					// Large inputs in every window, small ones both with
					// and without a checksum; the streaming encoder's
					// frames (no content size, many blocks) for some.
					big := n >= 600<<10
					if big && (w == 1<<20 || raceEnabled && lvl != kzstd.SpeedDefault) {
						continue
					}
					for _, crc := range []bool{true, !big} {
						opts := []kzstd.EOption{kzstd.WithEncoderLevel(lvl), kzstd.WithWindowSize(w), kzstd.WithEncoderCRC(crc)}
						name := fmt.Sprintf("%s/%d/%s/w%d/crc=%v", kind, n, lvl, w, crc)
						check(t, name+"/all", in, encode(t, in, opts...))
						if big == (w == 64<<10) {
							check(t, name+"/stream", in, encodeStream(t, in, opts...))
						}
					}
				}
			}
		}
	}
}

func check(t *testing.T, name string, in, enc []byte) {
	t.Helper()
	got, err := decodeAll(enc, 8<<20)
	if err != nil || !bytes.Equal(got, in) {
		t.Errorf("%s: %d bytes in, %d out, err %v", name, len(in), len(got), err)
	}
}

func TestDecodesEntropyChoicesAndFrames(t *testing.T) {
	in := sample("mixed", 700<<10)
	for name, opts := range map[string][]kzstd.EOption{
		"all literals entropy-coded": {kzstd.WithAllLitEntropyCompression(true)},
		"no entropy coding":          {kzstd.WithNoEntropyCompression(true)},
		"single segment":             {kzstd.WithSingleSegment(true)},
		"skippable padding":          {kzstd.WithEncoderPadding(4096)},
		"lower memory":               {kzstd.WithLowerEncoderMem(true), kzstd.WithEncoderLevel(kzstd.SpeedBestCompression)},
	} {
		check(t, name, in, encode(t, in, opts...))
		check(t, name+"/stream", in, encodeStream(t, in, opts...))
	}
	// Frames one after the other decode as their contents one after the other.
	a, b := sample("json", 9000), sample("runs", 70000)
	cat := append(encode(t, a), encode(t, b, kzstd.WithEncoderPadding(1000))...)
	check(t, "two frames", append(a, b...), cat)
	check(t, "empty frames", nil, append(encode(t, nil, kzstd.WithZeroFrames(true)), encode(t, nil, kzstd.WithZeroFrames(true))...))
}

func TestXXH64(t *testing.T) {
	for in, want := range map[string]uint64{
		"":    0xef46db3751d8e999,
		"a":   0xd24ec4f1a98c6e5b,
		"abc": 0x44bc2cf5ad770999,
	} {
		var x xxh64
		x.reset()
		x.write([]byte(in))
		if got := x.sum(); got != want {
			t.Errorf("xxh64(%q) = %#x, want %#x", in, got, want)
		}
	}
	// Written whole or in pieces, the sum is the same.
	in := sample("random", 1000)
	var whole, parts xxh64
	whole.reset()
	whole.write(in)
	parts.reset()
	for i := 0; i < len(in); i += 7 {
		parts.write(in[i:min(i+7, len(in))])
	}
	if whole.sum() != parts.sum() {
		t.Errorf("xxh64 in pieces %#x, whole %#x", parts.sum(), whole.sum())
	}
}

func TestRefusesWhatItMustNot(t *testing.T) {
	in := sample("json", 100<<10)
	dict, err := kzstd.NewWriter(nil, kzstd.WithEncoderDictRaw(77, sample("json", 4000)), kzstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	withDict := dict.EncodeAll(in, nil)
	if _, err := decodeAll(withDict, 8<<20); !errors.Is(err, ErrDictionary) {
		t.Errorf("a frame with a dictionary: %v, want ErrDictionary", err)
	}
	big := encodeStream(t, sample("json", 9<<20), kzstd.WithWindowSize(16<<20))
	if _, err := decodeAll(big, 8<<20); !errors.Is(err, ErrWindow) || !strings.Contains(err.Error(), "16777216") {
		t.Errorf("a 16 MiB window over an 8 MiB cap: %v, want ErrWindow", err)
	}
	one := encode(t, sample("json", 2<<20), kzstd.WithSingleSegment(true))
	if _, err := decodeAll(one, 1<<20); !errors.Is(err, ErrWindow) {
		t.Errorf("a 2 MiB single-segment frame over a 1 MiB cap: %v, want ErrWindow", err)
	}
	sum := encode(t, in, kzstd.WithEncoderCRC(true))
	sum[len(sum)-1] ^= 1
	if _, err := decodeAll(sum, 8<<20); !errors.Is(err, ErrChecksum) {
		t.Errorf("a changed checksum: %v, want ErrChecksum", err)
	}
	for _, bad := range []string{"this is not zstd at all", "ab", "\x28\xb5\x2f\xfe"} {
		if _, err := decodeAll([]byte(bad), 8<<20); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%q: %v, want ErrCorrupt", bad, err)
		}
	}
	// The start of a magic number is a stream cut short.
	for _, cut := range []string{"\x28", "\x28\xb5\x2f", "\x5c\x2a"} {
		if _, err := decodeAll([]byte(cut), 8<<20); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: %v, want io.ErrUnexpectedEOF", cut, err)
		}
	}
	// An error of the reader beneath is passed on as it is, even inside a
	// skippable frame.
	broken := errors.New("the reader beneath failed")
	skip := io.MultiReader(bytes.NewReader([]byte{0x50, 0x2a, 0x4d, 0x18, 100, 0, 0, 0, 1, 2}), iotest.ErrReader(broken))
	if _, err := io.ReadAll(NewReader(skip, 8<<20)); !errors.Is(err, broken) {
		t.Errorf("a failing reader inside a skippable frame: %v", err)
	}
}

// Cut anywhere, a stream decodes as far as it goes and then says it was
// cut, or that what it holds is invalid; it never panics.
func TestCutStreams(t *testing.T) {
	enc := encode(t, sample("mixed", 300<<10), kzstd.WithEncoderCRC(true))
	for n := 0; n < len(enc); n += 1 + n/50 {
		_, err := decodeAll(enc[:n], 8<<20)
		if n == 0 && err == nil {
			continue
		}
		if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d of %d: %v", n, len(enc), err)
		}
	}
}

// Changed bytes give an error or some output, but never a panic or a hang.
func TestDamagedStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, in := range [][]byte{sample("json", 50<<10), sample("mixed", 200<<10), sample("runs", 100<<10)} {
		for _, lvl := range levels {
			enc := encode(t, in, kzstd.WithEncoderLevel(lvl), kzstd.WithEncoderCRC(false))
			for i := 0; i < 150 && !(raceEnabled && i >= 30); i++ {
				bad := bytes.Clone(enc)
				for j := 0; j <= i%4; j++ {
					bad[r.IntN(len(bad))] ^= byte(1 << r.IntN(8))
				}
				out, _ := decodeAll(bad, 8<<20)
				if len(out) > 8<<20 {
					t.Fatalf("a damaged %d-byte stream gave %d bytes", len(enc), len(out))
				}
			}
		}
	}
}

// A frame that asks for the largest window allowed but holds little
// costs little: the history grows with what is decoded.
func TestSmallFrameInLargeWindowAllocatesLittle(t *testing.T) {
	enc := encodeStream(t, []byte("hello, hello, hello"), kzstd.WithWindowSize(8<<20))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := decodeAll(enc, 8<<20); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if took := after.TotalAlloc - before.TotalAlloc; took > 1<<20 {
		t.Errorf("decoding a 19-byte frame with an 8 MiB window took %d bytes", took)
	}
}

// fuzzEncoders keeps one encoder for each set of options the fuzz test
// uses: making an encoder allocates megabytes of tables, which would
// otherwise take most of each run.
var fuzzEncoders = map[uint8]*kzstd.Encoder{}

func fuzzEncode(t *testing.T, data []byte, how uint8) []byte {
	key := how & 0x7f
	e := fuzzEncoders[key]
	if e == nil {
		var err error
		e, err = kzstd.NewWriter(nil, kzstd.WithEncoderConcurrency(1),
			kzstd.WithEncoderLevel(levels[int(how)%len(levels)]),
			kzstd.WithWindowSize(1<<(10+how/4%8)),
			kzstd.WithEncoderCRC(how&0x20 != 0),
			kzstd.WithAllLitEntropyCompression(how&0x40 != 0))
		if err != nil {
			t.Fatal(err)
		}
		fuzzEncoders[key] = e
	}
	if how&0x80 == 0 {
		return e.EncodeAll(data, nil)
	}
	var buf bytes.Buffer
	e.Reset(&buf)
	for len(data) > 0 {
		n := min(len(data), 3000)
		if _, err := e.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// FuzzDecode decodes what the encoder makes of any input, which must give
// the input back, and decodes the same stream damaged and any input as
// it comes, which must end without a panic or a hang.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"", "a", "hello hello hello hello", strings.Repeat("abc", 1000)} {
		f.Add([]byte(s), uint8(0))
	}
	f.Add(sample("json", 20000), uint8(3))
	f.Add(sample("mixed", 40000), uint8(0xe6))
	f.Add(encode(f, sample("json", 3000)), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, how uint8) {
		if how >= 0xf0 {
			_, _ = io.Copy(io.Discard, io.LimitReader(NewReader(bytes.NewReader(data), 1<<20), 64<<20))
			return
		}
		enc := fuzzEncode(t, data, how)
		got, err := decodeAll(enc, 8<<20)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes in, %d out, err %v", len(data), len(got), err)
		}
		if len(enc) > 0 {
			bad := bytes.Clone(enc)
			bad[int(how)*7919%len(bad)] ^= how | 1
			_, _ = io.Copy(io.Discard, io.LimitReader(NewReader(bytes.NewReader(bad), 8<<20), 64<<20))
		}
	})
}

// handMade writes a frame whose second block holds nseq sequences, each
// three bytes copied from one back, with run-length tables for all three
// codes: literal length 0, offset code 2 (two extra bits, all zero, for
// an offset value of 4, a distance of 1) and match length 3.
func handMade(nseq int) []byte {
	var count []byte
	switch {
	case nseq < 128:
		count = []byte{byte(nseq)}
	case nseq < 0x7f00:
		count = []byte{byte(128 + nseq>>8), byte(nseq)}
	default:
		count = []byte{255, byte(nseq - 0x7f00), byte((nseq - 0x7f00) >> 8)}
	}
	block := append([]byte{0x00}, count...)       // no literals
	block = append(block, 0x54, 0x00, 0x02, 0x00) // three run-length codes
	bits := 2 * nseq                              // two zero bits a sequence, then the end mark
	stream := make([]byte, bits/8+1)
	stream[bits/8] = 1 << (bits % 8)
	block = append(block, stream...)
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38} // 128 KiB window
	frame = append(frame, 1<<3, 0, 0, 'x')              // a raw block of one byte
	h := len(block)<<3 | 2<<1 | 1
	frame = append(frame, byte(h), byte(h>>8), byte(h>>16))
	return append(frame, block...)
}

func TestDecodesEverySequenceCountForm(t *testing.T) {
	for _, n := range []int{5, 300, 33000} {
		got, err := decodeAll(handMade(n), 8<<20)
		if err != nil || !bytes.Equal(got, bytes.Repeat([]byte("x"), 1+3*n)) {
			t.Errorf("%d sequences: %d bytes, err %v", n, len(got), err)
		}
	}
	// 44,000 sequences of three bytes overflow a 128 KiB block.
	if _, err := decodeAll(handMade(44000), 8<<20); !errors.Is(err, ErrCorrupt) {
		t.Errorf("a block decoding past 128 KiB: %v, want ErrCorrupt", err)
	}
}
