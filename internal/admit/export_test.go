package admit

// Waiting is how many EnterWithin calls wait for a place now.
func (g *Gate) Waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.waiting
}
