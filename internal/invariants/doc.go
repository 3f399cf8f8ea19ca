// Package invariants holds tests over taskd's source itself: rules that
// hold for the whole code base, such as comparing secrets only in constant
// time, or the map of packages in docs/architecture.md drawing the imports
// the code has. It has no code of its own.
package invariants
