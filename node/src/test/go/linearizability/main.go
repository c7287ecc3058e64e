// Command linearizability checks a history of one register under conditional writes for
// linearizability with Porcupine (github.com/anishathalye/porcupine), a checker nobody on the
// project wrote.
//
// Usage: go run . HISTORY.json
//
// The register's state is the entity tag of its current version ("" when absent). The history is
// a JSON array of compare-and-set operations, each with its invoke and return times:
//
//	{"client": 1, "call": 10, "return": 25, "expect": "", "result": "ok", "etag": "\"17.0\""}
//	{"client": 2, "call": 12, "return": 30, "expect": "\"17.0\"", "result": "refused", "etag": "\"18.0\""}
//
// `expect` is the tag the write requires ("" for absent: If-None-Match: *). An "ok" names the new
// version's tag; a "refused" (412) names the current one ("" when absent). A "read" is a write
// that expects a tag never issued: always refused, it names the current tag linearizably. An "unknown" (a timeout) may or may not have applied:
// its return is taken as the end of time, and if it applied the register holds a tag nobody saw
// answered, which any tag no "ok" answered then matches if it is newer than the tag the write
// replaced; once a refusal names the current tag, the register is at that tag. (Without those two
// rules the model let an unknown state match the tag of an earlier unknown write, and rejected the
// linearizable history of CI run 18: node/src/test/resources/io/kvorum/node/coordinator/ci18-join-history.json.)
//
// Prints "linearizable" (exit 0) or "not linearizable" (exit 1); exit 2 on a malformed history.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/anishathalye/porcupine"
)

type op struct {
	Client int    `json:"client"`
	Call   int64  `json:"call"`
	Return int64  `json:"return"`
	Read   bool   `json:"read"`
	Expect string `json:"expect"`
	Result string `json:"result"`
	Etag   string `json:"etag"`
}

type input struct {
	id     int
	read   bool
	expect string
}

type output struct {
	result string
	etag   string
}

func model(answered map[string]bool) porcupine.Model {
	// Whether the register in `state` is at `tag`.
	at := func(state, tag string) bool {
		if strings.HasPrefix(state, "unknown:") {
			// "unknown:<op>:<the tag it replaced>": a version nobody saw answered, newer than the
			// one it replaced (a write's version is above the version it replaces).
			return tag != "" && !answered[tag] && newer(tag, replaced(state))
		}
		return state == tag
	}
	return porcupine.Model{
		Init: func() interface{} { return "" },
		Step: func(state, in, out interface{}) (bool, interface{}) {
			current := state.(string)
			i := in.(input)
			o := out.(output)
			holds := !i.read && at(current, i.expect)
			switch o.result {
			case "ok":
				return holds, o.etag
			case "refused":
				// A refusal names the current tag: from then on an unknown state is that tag.
				return !holds && at(current, o.etag), o.etag
			default: // unknown
				if holds {
					return true, fmt.Sprintf("unknown:%d:%s", i.id, replaced(current))
				}
				return true, current
			}
		},
		Equal: func(a, b interface{}) bool { return a.(string) == b.(string) },
		DescribeOperation: func(in, out interface{}) string {
			i := in.(input)
			o := out.(output)
			if i.read {
				return fmt.Sprintf("read() -> %s", o.etag)
			}
			return fmt.Sprintf("cas(%s) -> %s %s", i.expect, o.result, o.etag)
		},
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: linearizability HISTORY.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var ops []op
	if err := json.Unmarshal(data, &ops); err != nil {
		fmt.Fprintln(os.Stderr, "malformed history:", err)
		os.Exit(2)
	}
	var end int64
	answered := map[string]bool{}
	for _, o := range ops {
		if o.Return > end {
			end = o.Return
		}
		if o.Result == "ok" {
			answered[o.Etag] = true
		}
	}
	history := make([]porcupine.Operation, 0, len(ops))
	for id, o := range ops {
		ret := o.Return
		switch o.Result {
		case "ok", "refused":
		case "unknown":
			ret = end + 1
		default:
			fmt.Fprintln(os.Stderr, "malformed history: a result of", o.Result)
			os.Exit(2)
		}
		history = append(history, porcupine.Operation{
			ClientId: o.Client,
			Input:    input{id: id, read: o.Read, expect: o.Expect},
			Call:     o.Call,
			Output:   output{result: o.Result, etag: o.Etag},
			Return:   ret,
		})
	}
	if porcupine.CheckOperations(model(answered), history) {
		fmt.Println("linearizable")
		return
	}
	fmt.Println("not linearizable")
	os.Exit(1)
}

// The tag of a known state, or the tag an unknown state replaced.
func replaced(state string) string {
	if strings.HasPrefix(state, "unknown:") {
		return strings.SplitN(state, ":", 3)[2]
	}
	return state
}

// Whether version tag a ("\"<millis>.<counter>\"") is newer than b; every tag is newer than "".
func newer(a, b string) bool {
	if b == "" {
		return true
	}
	var am, ac, bm, bc int64
	fmt.Sscanf(strings.Trim(a, "\""), "%d.%d", &am, &ac)
	fmt.Sscanf(strings.Trim(b, "\""), "%d.%d", &bm, &bc)
	return am > bm || (am == bm && ac > bc)
}
