package store_test

import (
	"context"
	"maps"
	"testing"

	"github.com/taskd/taskd"
	"github.com/taskd/taskd/internal/testaccount"
	"github.com/taskd/taskd/internal/testdb"
	"github.com/taskd/taskd/store"
)

// TestSealedCountsWhatIsSealed: Sealed counts the sealed values by kind,
// leaving out an empty one (a revoked API key): an empty database holds
// none, which is when a new master key may be made (cmd/taskd).
func TestSealedCountsWhatIsSealed(t *testing.T) {
	t.Parallel()
	testdb.Each(t, func(t *testing.T, d testdb.DB) {
		ctx := context.Background()
		db := d.Open(t)
		expect := func(want map[string]int) {
			t.Helper()
			got, err := db.Sealed(ctx)
			if err != nil || !maps.Equal(got, want) {
				t.Fatalf("Sealed: %v %v, want %v", got, err, want)
			}
		}
		expect(map[string]int{})
		sealer := testdb.Sealer(t)
		a := testaccount.New(t, db, testaccount.Options{Sealer: sealer})
		testaccount.New(t, db, testaccount.Options{Sealer: sealer})
		if err := db.AddSigningKey(ctx, taskd.SigningKey{KID: "k1", Private: sealer.Seal([]byte("der"), nil)}); err != nil {
			t.Fatal(err)
		}
		expect(map[string]int{store.SealedAPIKey: 2, store.SealedSigningKey: 1})
		if err := db.SetAPIKey(ctx, a.ID, []byte{}, 0); err != nil { // revoked
			t.Fatal(err)
		}
		expect(map[string]int{store.SealedAPIKey: 1, store.SealedSigningKey: 1})
	})
}
