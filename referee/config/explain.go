package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	unknownField = regexp.MustCompile(`^line (\d+): field (.+) not found in type (\S+)$`)
	wrongType    = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+) `(.*)` into (\\S+)$")
)

// explainYAML rewrites the YAML decoder's type errors in a reader's terms:
// the line, the key, and what the key takes, instead of Go's field and
// type names ("field startgame not found in type config.Config",
// "cannot unmarshal !!int `9600` into uint8").
func explainYAML(data []byte, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // the decoder read it: it parses
	msgs := make([]string, 0, len(te.Errors))
	for _, e := range te.Errors {
		msgs = append(msgs, explainOne(&root, e))
	}
	return errors.New(strings.Join(msgs, "; "))
}

func explainOne(root *yaml.Node, msg string) string {
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		out := fmt.Sprintf("line %s: unknown key %q", m[1], m[2])
		if keys := keysOf(m[3]); len(keys) > 0 {
			out += fmt.Sprintf(" (the keys here: %s)", strings.Join(keys, ", "))
		}
		return out
	}
	if m := wrongType.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		key := keyAt(root, line)
		if key == "" {
			return fmt.Sprintf("line %d: %q is not %s", line, m[3], wants(m[4]))
		}
		return fmt.Sprintf("line %d: %s: %q is not %s", line, key, m[3], wants(m[4]))
	}
	return msg
}

// wants says in words what a value of the Go type named typ is.
func wants(typ string) string {
	switch typ {
	case "bool":
		return "true or false"
	case "string":
		return "text"
	case "time.Duration":
		return "a duration (500ms, 2s, 1m)"
	case "int", "int64", "int32":
		return "a whole number"
	case "float64", "float32":
		return "a number"
	}
	if strings.HasPrefix(typ, "[]") {
		return "a list"
	}
	if strings.HasPrefix(typ, "map[") || strings.Contains(typ, ".") {
		return "a section of keys"
	}
	if bits, ok := strings.CutPrefix(typ, "uint"); ok {
		n, err := strconv.Atoi(bits)
		if err != nil {
			n = 64
		}
		return fmt.Sprintf("a whole number from 0 to %d", uint64(1)<<n-1)
	}
	if bits, ok := strings.CutPrefix(typ, "int"); ok {
		n, _ := strconv.Atoi(bits)
		return fmt.Sprintf("a whole number from %d to %d", -(int64(1) << (n - 1)), int64(1)<<(n-1)-1)
	}
	return "a " + typ
}

// keyAt returns the dotted key whose value starts on line, or "".
func keyAt(n *yaml.Node, line int) string {
	var walk func(n *yaml.Node, path string) string
	walk = func(n *yaml.Node, path string) string {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if k := walk(c, path); k != "" {
					return k
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := k.Value
				if path != "" {
					p = path + "." + k.Value
				}
				if v.Line == line && v.Kind == yaml.ScalarNode {
					return p
				}
				if found := walk(v, p); found != "" {
					return found
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if found := walk(c, fmt.Sprintf("%s[%d]", path, i)); found != "" {
					return found
				}
			}
		}
		return ""
	}
	return walk(n, "")
}

// keysOf lists the YAML keys of the configuration's section whose Go type
// is named typ ("config.Config", "config.Broker", ...).
func keysOf(typ string) []string {
	var found []string
	seen := map[reflect.Type]bool{}
	var visit func(t reflect.Type)
	visit = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		var keys []string
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			keys = append(keys, name)
			visit(f.Type)
		}
		if t.String() == typ {
			found = keys
		}
	}
	visit(reflect.TypeOf(Config{}))
	slices.Sort(found)
	return found
}
