package store

import (
	"fmt"
	"reflect"
	"time"

	"github.com/shopspring/decimal"
)

// alike compares two values field by field, unexported ones too; times
// by their String (instant, location, monotonic reading) and decimals by
// number and String. It answers where they differ.
func alike(a, b reflect.Value, path string) (string, bool) {
	switch t := a.Type(); {
	case !a.CanInterface():
	case t == reflect.TypeFor[time.Time]():
		ta, tb := a.Interface().(time.Time), b.Interface().(time.Time)
		return path, ta.String() == tb.String()
	case t == reflect.TypeFor[decimal.Decimal]():
		da, db := a.Interface().(decimal.Decimal), b.Interface().(decimal.Decimal)
		return path, da.Equal(db) && da.String() == db.String()
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return path, a.IsNil() == b.IsNil()
		}
		if a.Kind() == reflect.Interface && a.Elem().Type() != b.Elem().Type() {
			return path, false
		}
		return alike(a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return path, false
		}
		for i := range a.Len() {
			if p, ok := alike(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i)); !ok {
				return p, false
			}
		}
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return path, false
		}
		for it := a.MapRange(); it.Next(); {
			bv := b.MapIndex(it.Key())
			if !bv.IsValid() {
				return path + "." + it.Key().String(), false
			}
			if p, ok := alike(it.Value(), bv, path+"."+it.Key().String()); !ok {
				return p, false
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if p, ok := alike(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); !ok {
				return p, false
			}
		}
	case reflect.String:
		return path, a.String() == b.String()
	case reflect.Bool:
		return path, a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return path, a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return path, a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return path, a.Float() == b.Float()
	default:
		return path, false
	}
	return path, true
}
