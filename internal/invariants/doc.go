// Package invariants holds tests over taskd's source itself: rules that
// hold for the whole code base, such as comparing secrets only in constant
// time. It has no code of its own.
package invariants
