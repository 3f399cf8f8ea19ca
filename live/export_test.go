package live

import "context"

// RecheckForTest checks every stream's trust with ctx, as the hub does on
// a change of trust.
func (h *Hub) RecheckForTest(ctx context.Context) { h.recheck(ctx) }
