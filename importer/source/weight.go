package source

import "reflect"

// mapEntry is the memory a map entry takes besides its key and value, an
// estimate (buckets, hashes, free slots).
const mapEntry = 16

// weigh estimates the memory v takes, in bytes: its own size and what its
// strings, slices and maps hold, followed through structs (pointers are
// not: the values read have none but time.Time's location, shared). It is
// what a read keeps of a value against its bounds (reading.keep).
func weigh(v any) int64 {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return 0
	}
	return int64(rv.Type().Size()) + held(rv)
}

// held is what v's strings, slices and maps hold, beyond v itself.
func held(v reflect.Value) int64 {
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Slice:
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		for i := range v.Len() {
			n += held(v.Index(i))
		}
		return n
	case reflect.Struct:
		var n int64
		for i := range v.NumField() {
			n += held(v.Field(i))
		}
		return n
	case reflect.Map:
		t := v.Type()
		n := int64(v.Len()) * (int64(t.Key().Size()+t.Elem().Size()) + mapEntry)
		for it := v.MapRange(); it.Next(); {
			n += held(it.Key()) + held(it.Value())
		}
		return n
	}
	return 0
}
