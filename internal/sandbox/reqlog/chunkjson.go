package reqlog

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// appendChunk writes a chunk's entries as the JSON array encoding/json
// would write of them (the same names and omissions; strings escaped as
// JSON needs, not HTML), which json.Unmarshal reads back into the same
// values. Under load the log writes a chunk of a couple of thousand
// entries every tenth of a second, and json.Marshal's reflection was the
// largest part of its writer's time.
func appendChunk(b []byte, entries []storedEntry) []byte {
	b = append(b, '[')
	for i := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendEntry(b, &entries[i])
	}
	return append(b, ']')
}

func appendEntry(b []byte, e *storedEntry) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"at":"`...)
	b = e.At.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = appendField(b, "region", e.Region, false)
	b = appendField(b, "merchant_code", e.MerchantCode, true)
	b = appendField(b, "mode", e.Mode, true)
	b = appendField(b, "key", e.Key, true)
	b = appendField(b, "method", e.Method, false)
	b = appendField(b, "path", e.Path, false)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(e.Status), 10)
	b = appendField(b, "error_type", e.ErrorType, true)
	b = appendField(b, "error", e.Error, true)
	b = append(b, `,"latency_ms":`...)
	b = strconv.AppendFloat(b, e.LatencyMS, 'g', -1, 64)
	b = appendField(b, "request_body", e.RequestBody, true)
	b = appendField(b, "response_body", e.ResponseBody, true)
	if e.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	b = appendField(b, "fault", e.Fault, true)
	if e.Committed != 0 {
		b = append(b, `,"committed_status":`...)
		b = strconv.AppendInt(b, int64(e.Committed), 10)
	}
	b = appendField(b, "rq", e.RequestHash, true)
	b = appendField(b, "rs", e.ResponseHash, true)
	if e.RequestText != 0 {
		b = append(b, `,"rqt":`...)
		b = strconv.AppendInt(b, int64(e.RequestText), 10)
	}
	if e.ResponseText != 0 {
		b = append(b, `,"rst":`...)
		b = strconv.AppendInt(b, int64(e.ResponseText), 10)
	}
	return append(b, '}')
}

// appendField writes `,"name":"value"`, nothing for an empty value that
// is omitted.
func appendField(b []byte, name, value string, omitEmpty bool) []byte {
	if omitEmpty && value == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, value)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, and each byte that is not UTF-8 written as U+FFFD,
// as encoding/json does.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
