package loop

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// A run keeps the config it started with (README): state.json records a
// digest of config.yaml, key by key, so that a resumed run whose file was
// edited in place is refused with the keys that changed instead of
// quietly mixing two configs (issue 47). The digest is of the keys'
// values, not of the bytes: comments, layout and quoting may change.

// configDigest is a config file's digest: a hash of the whole and a short
// hash of each key's value, a key named by its path of sections
// ("selfplay.search.simulations"; a list is one value).
type configDigest struct {
	Hash string
	Keys map[string]string
}

// digestConfig digests the YAML config data.
func digestConfig(data []byte) (configDigest, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return configDigest{}, fmt.Errorf("loop: %s: %w", ConfigKey, err)
	}
	keys := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		var sub map[string]any
		switch m := v.(type) {
		case map[string]any:
			sub = m
		case map[any]any:
			sub = make(map[string]any, len(m))
			for k, x := range m {
				sub[fmt.Sprint(k)] = x
			}
		}
		if sub == nil || prefix != "" && len(sub) == 0 {
			if prefix == "" {
				return // an empty document, or not a mapping: no keys
			}
			b, err := json.Marshal(v)
			if err != nil {
				b = fmt.Appendf(nil, "%#v", v)
			}
			sum := sha256.Sum256(b)
			keys[prefix] = hex.EncodeToString(sum[:8])
			return
		}
		for k, x := range sub {
			if prefix != "" {
				k = prefix + "." + k
			}
			walk(k, x)
		}
	}
	walk("", doc)
	h := sha256.New()
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		fmt.Fprintf(h, "%s=%s\n", k, keys[k])
	}
	return configDigest{Hash: hex.EncodeToString(h.Sum(nil)), Keys: keys}, nil
}

// changedKeys describes how the keys of was became those of now: the
// keys changed, added and removed, each list sorted.
func changedKeys(was, now map[string]string) string {
	var changed, added, removed []string
	for k, v := range now {
		if old, ok := was[k]; !ok {
			added = append(added, k)
		} else if old != v {
			changed = append(changed, k)
		}
	}
	for k := range was {
		if _, ok := now[k]; !ok {
			removed = append(removed, k)
		}
	}
	var parts []string
	for _, p := range []struct {
		what string
		keys []string
	}{{"changed", changed}, {"added", added}, {"removed", removed}} {
		if len(p.keys) > 0 {
			slices.Sort(p.keys)
			parts = append(parts, p.what+" "+strings.Join(p.keys, ", "))
		}
	}
	if len(parts) == 0 {
		return "its keys' record in " + StateKey + " is damaged"
	}
	return strings.Join(parts, "; ")
}
