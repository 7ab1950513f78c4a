package bulk

import (
	"slices"
	"testing"

	"github.com/bnpl-cli/bnpl/internal/bulk/ledger"
)

// A move's identity is its meaning: the same moves, reordered, with
// amounts written otherwise and identical moves in another order, make
// the same set of journal keys and derived reference_ids; an edited
// reason makes another.
func TestIdentityIsTheMeaningNotTheOrder(t *testing.T) {
	rows := []Row{
		{Op: OpCapture, PaymentID: pidA, Amount: "50.00"},
		{Op: OpCapture, PaymentID: pidA, Amount: "50.00"},
		{Op: OpCapture, PaymentID: pidA, Amount: FullAmount},
		{Op: OpRefund, PaymentID: pidB, Amount: "5.00", Reason: "late"},
	}
	copyRows := []Row{
		{Op: OpRefund, PaymentID: pidB, Amount: "5", Reason: "late"},
		{Op: OpCapture, PaymentID: pidA, Amount: "50"},
		{Op: OpCapture, PaymentID: pidA, Amount: FullAmount},
		{Op: OpCapture, PaymentID: pidA, Amount: "50.0"},
	}
	keys, refs := rowIdentity("", rows)
	copyKeys, copyRefs := rowIdentity("", copyRows)
	slices.Sort(keys)
	slices.Sort(copyKeys)
	slices.Sort(refs)
	slices.Sort(copyRefs)
	if !slices.Equal(keys, copyKeys) || !slices.Equal(refs, copyRefs) {
		t.Fatalf("the same moves made other identities:\n%v\n%v", keys, copyKeys)
	}
	if keys[0] == keys[1] || refs[0] == refs[1] {
		t.Fatal("two identical moves share an identity")
	}
	edited := slices.Clone(rows)
	edited[3].Reason = "late delivery"
	editedKeys, _ := rowIdentity("", edited)
	if slices.Contains(keys, editedKeys[3]) {
		t.Fatal("an edited reason kept the move's identity")
	}
	if ledger.MoveID("service A", keys[0]) == ledger.MoveID("service B", keys[0]) {
		t.Fatal("the same move on two services is one ledger row")
	}
}

// --reference-prefix with the default prefix sends the default run's
// reference_ids, so it is the default run's moves: the same journal keys
// and ledger rows, and a resume with it counts what a killed run moved.
// Another prefix makes other moves.
func TestTheDefaultPrefixNamedIsNoPrefix(t *testing.T) {
	rows := []Row{{Op: OpCapture, PaymentID: pidA, Amount: "50.00"}, {Op: OpRefund, PaymentID: pidB, Amount: "5.00", Reason: "late"}}
	keys, refs := rowIdentity("", rows)
	namedKeys, namedRefs := rowIdentity(DefaultReferencePrefix, rows)
	if !slices.Equal(keys, namedKeys) || !slices.Equal(refs, namedRefs) {
		t.Fatalf("--reference-prefix %s made other moves: %v %v, want %v %v", DefaultReferencePrefix, namedKeys, namedRefs, keys, refs)
	}
	otherKeys, otherRefs := rowIdentity("run2", rows)
	if slices.Contains(keys, otherKeys[0]) || slices.Contains(refs, otherRefs[0]) {
		t.Fatal("another prefix kept the moves' identity")
	}
}
