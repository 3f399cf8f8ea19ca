package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// readChunk is the most a reading takes from its body at once; the
// budget's reserve is the bound of one answer and one chunk.
const readChunk = 32 << 10

// ErrAnswerTooLarge is an answer over the bound of one answer
// (Options.MaxAnswerBytes): its bytes, or the values decoded from it. The
// error that wraps it names the limit (*TooLargeError).
var ErrAnswerTooLarge = errors.New("the answer is over the bound of one answer")

// TooLargeError is an answer refused by the bound of one answer: Limit is
// the bound, About the call's first id argument ("id_task=101", "" when
// it has none), Values whether what the answer keeps once decoded, not
// its bytes, is over it, and Objects how many values were kept before.
type TooLargeError struct {
	About   string
	Limit   int64
	Values  bool
	Objects int
}

func (e *TooLargeError) Error() string {
	about := ""
	if e.About != "" {
		about = " for " + e.About
	}
	if e.Values {
		return fmt.Sprintf("the answer%s holds more than %s once decoded (%d values read), the bound of one answer", about, Size(e.Limit), e.Objects)
	}
	return fmt.Sprintf("the answer%s is larger than %s, the bound of one answer", about, Size(e.Limit))
}

// Unwrap is ErrAnswerTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrAnswerTooLarge }

// Size writes a number of bytes for people: whole MiB or KiB where it is
// one, bytes otherwise.
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// reading is the read of one answer's body. It counts the bytes received
// against the bound of one answer, scans them as they pass (nesting, and
// strings past MaxString cut), and holds them against the client's budget
// until the decoder has consumed them; then it holds, instead, the values
// decoded from them and kept (keep). Only one element of a list is ever
// waiting to be decoded, so what a read holds is what it keeps, plus one
// element; it never holds more than the bound and a chunk (fits).
type reading struct {
	ctx   context.Context
	body  io.Reader
	h     *hold      // nil: no budget (decoding bytes at hand)
	pause func(bool) // called around a wait for the budget; may be nil
	max   int64      // the bound of one answer
	about string     // the call's first argument, for errors

	dec      *json.Decoder
	scan     jsonScan
	received int64 // bytes received
	consumed int64 // of those passed to the decoder, decoded (as of the last keep)
	kept     int64 // estimated bytes of the values kept
	taken    int64 // what this reading holds of h
	objects  int   // values kept
	err      error // the first failure of Read: a bound, the budget or the body
}

// newReading reads body with the bound max, holding against h when it is
// not nil.
func newReading(ctx context.Context, body io.Reader, h *hold, max int64, about string) *reading {
	r := &reading{ctx: ctx, body: body, h: h, max: max, about: about}
	r.dec = json.NewDecoder(r)
	return r
}

func (r *reading) tooLarge(values bool) error {
	return &TooLargeError{About: r.about, Limit: r.max, Values: values, Objects: r.objects}
}

// fits says whether the read may hold n bytes more: what it holds stays
// within the bound of one answer and the chunk being read, the budget's
// reserve, so that the oldest read never waits.
func (r *reading) fits(n int64) bool { return r.taken+n <= r.max+readChunk }

func (r *reading) take(n int64) error {
	if r.h != nil {
		if err := r.h.take(r.ctx, n, r.pause); err != nil {
			if cause := context.Cause(r.ctx); errors.As(cause, new(timedOut)) {
				return netError{cause} // the call's clock: retried as a slow answer
			}
			return err
		}
	}
	r.taken += n
	return nil
}

func (r *reading) give(n int64) {
	if n <= 0 {
		return
	}
	if r.h != nil {
		r.h.give(n)
	}
	r.taken -= n
}

// Read reads at most a chunk of the body, held against the budget before
// it is read, and passes it through the scan (nesting, long strings); it
// fails past the bound of one answer, past MaxDepth, or when the body
// does (a network error, retried).
func (r *reading) Read(p []byte) (int, error) {
	for {
		if r.err != nil {
			return 0, r.err
		}
		k := int64(min(len(p), readChunk))
		if !r.fits(k) {
			// What is kept, with what waits to be decoded, is over the bound.
			r.err = r.tooLarge(true)
			return 0, r.err
		}
		if err := r.take(k); err != nil {
			r.err = err
			return 0, err
		}
		n, err := r.body.Read(p[:k])
		r.received += int64(n)
		if r.received > r.max {
			r.give(k)
			r.err = r.tooLarge(false)
			return 0, r.err
		}
		w, serr := r.scan.filter(p[:n]) // long strings cut
		r.give(k - int64(w))
		switch {
		case serr != nil:
			r.err = serr
			return 0, serr
		case err != nil && err != io.EOF:
			r.err = netError{clean(err)}
			return w, r.err
		case w > 0 || err != nil:
			return w, err
		}
	}
}

// keep notes a value decoded and kept, of about weight bytes (weigh): the
// bytes the decoder consumed are given back to the budget, and the
// value's weight taken instead. It fails when what the read holds would
// be over the bound of one answer.
func (r *reading) keep(weight int64) error {
	if off := r.dec.InputOffset(); off > r.consumed {
		r.give(off - r.consumed)
		r.consumed = off
	}
	if !r.fits(weight) {
		r.err = r.tooLarge(true)
		return r.err
	}
	if err := r.take(weight); err != nil {
		r.err = err
		return err
	}
	r.kept += weight
	r.objects++
	return nil
}

// settle gives back what the read holds but its values kept: the bytes
// after the last value (the envelope's end).
func (r *reading) settle() { r.give(r.taken - r.kept) }

// noData is a reading of null, for an answer without data, holding
// against r's hold.
func noData(r *reading) *reading {
	return newReading(r.ctx, strings.NewReader("null"), r.h, r.max, r.about)
}

// dataFunc decodes an answer's data, r.dec being at its start.
type dataFunc func(r *reading) error

// errNotAPI is an answer that is not the API's JSON envelope.
var errNotAPI = errors.New("the answer is not the API's JSON")

// skip is a JSON value read and dropped.
type skip struct{}

func (*skip) UnmarshalJSON([]byte) error { return nil }

// readAnswer decodes the envelope of an answer as it is read, and its
// data with onData when the answer may be a success (withData: HTTP 200)
// and its status, where it came before the data, is ok; other fields and
// the data of a failure are read and dropped. It returns the envelope and
// the first error: a read's failure (r.err), errNotAPI for what is not
// the envelope, or onData's own error wrapped in a dataError.
func readAnswer(r *reading, withData bool, onData dataFunc) (envelope, error) {
	var env envelope
	dec := r.dec
	fail := func(err error) (envelope, error) {
		if r.err != nil {
			return env, r.err
		}
		return env, err
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fail(errNotAPI)
	}
	data := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fail(errNotAPI)
		}
		switch tok {
		case "status":
			err = dec.Decode(&env.Status)
		case "status_code":
			err = dec.Decode(&env.StatusCode)
		case "message":
			err = dec.Decode(&env.Message)
		case "message_details":
			err = dec.Decode(&env.Details)
		case "data":
			if data {
				return fail(errNotAPI)
			}
			data = true
			env.HasData = true
			if !withData || onData == nil || (env.Status != "" && env.Status != "ok") {
				err = dec.Decode(&skip{})
				break
			}
			if derr := onData(r); derr != nil {
				if r.err != nil {
					return env, r.err
				}
				if isSyntax(derr) {
					return env, errNotAPI
				}
				return env, dataError{derr}
			}
		default:
			err = dec.Decode(&skip{})
		}
		if err != nil {
			return fail(errNotAPI)
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return fail(errNotAPI)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail(errNotAPI)
	}
	return env, nil
}

// dataError is a failure to decode or convert an answer's data.
type dataError struct{ err error }

func (e dataError) Error() string { return e.err.Error() }
func (e dataError) Unwrap() error { return e.err }

// isSyntax is an error of JSON syntax, or a body that ended in a value.
func isSyntax(err error) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF)
}
