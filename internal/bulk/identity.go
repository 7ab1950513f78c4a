package bulk

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
)

// identifier gives rows their journal key and derived reference_id one at
// a time, in input order (see rowIdentity): what it keeps is a count per
// distinct row content, by a 128-bit hash of the content, in a flat table.
type identifier struct {
	prefix string
	seen   pairTable
}

// next is the key and derived reference_id of row, the next row of the
// input.
func (id *identifier) next(r Row) (key, ref string) {
	content := rowContent(r)
	sum := sha256.Sum256([]byte(content))
	h := [2]uint64{binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])}
	count := id.seen.get(h) + 1
	id.seen.put(h, count)
	ordinal := strconv.FormatUint(uint64(count), 10)
	keyed := content + "\x1f" + ordinal
	if id.prefix != "" && r.ReferenceID == "" {
		keyed += "\x1f" + id.prefix
	}
	k := sha256.Sum256([]byte(keyed))
	key = hex.EncodeToString(k[:16])
	if r.ReferenceID == "" && r.Op != OpClose {
		ref = derivedReference(id.prefix, content, int(count))
	}
	return key, ref
}

// pairTable maps 128-bit hashes to 32-bit counts in flat slices, open
// addressing with linear probing: 20 bytes a slot, at most 3/4 full, and
// nothing for the garbage collector to scan. The all-zero key marks an
// empty slot; a hash that is all zero is stored as {0, 1}.
type pairTable struct {
	keys [][2]uint64
	vals []uint32
	n    int
}

func (t *pairTable) slot(key [2]uint64) (int, [2]uint64) {
	if key == [2]uint64{} {
		key[1] = 1
	}
	mask := len(t.keys) - 1
	i := int(key[0]*0x9e3779b97f4a7c15>>32) & mask
	for t.keys[i] != [2]uint64{} && t.keys[i] != key {
		i = (i + 1) & mask
	}
	return i, key
}

// get is the value of key, 0 when absent.
func (t *pairTable) get(key [2]uint64) uint32 {
	if t.n == 0 {
		return 0
	}
	i, k := t.slot(key)
	if t.keys[i] != k {
		return 0
	}
	return t.vals[i]
}

func (t *pairTable) put(key [2]uint64, val uint32) {
	if (t.n+1)*4 > len(t.keys)*3 {
		keys, vals := t.keys, t.vals
		size := max(2*len(keys), 1024)
		t.keys, t.vals, t.n = make([][2]uint64, size), make([]uint32, size), 0
		for i, k := range keys {
			if k != [2]uint64{} {
				t.put(k, vals[i])
			}
		}
	}
	i, k := t.slot(key)
	if t.keys[i] == [2]uint64{} {
		t.n++
	}
	t.keys[i], t.vals[i] = k, val
}
