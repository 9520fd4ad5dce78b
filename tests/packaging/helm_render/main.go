// helm_render renders a Helm chart the way `helm template` does, for the
// packaging tests: Helm is not packaged in Debian 12, but its engine is Go's
// text/template with the sprig function library plus a few functions of its
// own (include, tpl, required, toYaml, fromYaml, toJson), and both Go and
// sprig are. Values: the chart's values.yaml, deep-merged with each -f file
// in order. Output: every non-partial template, each preceded by a
// "# Source:" comment, separated by "---", like `helm template`.
//
// Usage: helm_render CHART_DIR RELEASE_NAME [-f VALUES.yaml]...
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"gopkg.in/yaml.v3"
)

func readYAML(path string) (map[string]interface{}, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// merge copies src over dst; maps merge key by key, anything else replaces
// (Helm's coalescing of user values over chart defaults).
func merge(dst, src map[string]interface{}) {
	for k, v := range src {
		sm, sok := v.(map[string]interface{})
		dm, dok := dst[k].(map[string]interface{})
		if sok && dok {
			merge(dm, sm)
			continue
		}
		dst[k] = v
	}
}

func toYAML(v interface{}) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func run() error {
	if len(os.Args) < 3 {
		return errors.New("usage: helm_render CHART_DIR RELEASE_NAME [-f VALUES.yaml]...")
	}
	chartDir, release := os.Args[1], os.Args[2]
	chart, err := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return err
	}
	values, err := readYAML(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return err
	}
	rest := os.Args[3:]
	for len(rest) > 0 {
		if rest[0] != "-f" || len(rest) < 2 {
			return fmt.Errorf("unexpected argument %q", rest[0])
		}
		user, err := readYAML(rest[1])
		if err != nil {
			return err
		}
		merge(values, user)
		rest = rest[2:]
	}
	// Helm exposes Chart.yaml keys capitalised (.Chart.AppVersion).
	chartObj := map[string]interface{}{}
	for k, v := range chart {
		chartObj[strings.ToUpper(k[:1])+k[1:]] = v
	}
	top := map[string]interface{}{
		"Values": values,
		"Chart":  chartObj,
		"Release": map[string]interface{}{
			"Name": release, "Namespace": "default", "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{"Version": "v1.28.0", "Major": "1", "Minor": "28"},
		},
		"Template": map[string]interface{}{"BasePath": "templates"},
	}

	root := template.New("chart").Option("missingkey=zero")
	funcs := sprig.TxtFuncMap()
	delete(funcs, "env")
	delete(funcs, "expandenv")
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	funcs["toJson"] = func(v interface{}) string {
		b, _ := json.Marshal(v)
		return string(b)
	}
	funcs["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return nil, errors.New(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return nil, errors.New(msg)
		}
		return v, nil
	}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = t.Execute(&buf, data)
		return buf.String(), err
	}
	root.Funcs(funcs)

	tdir := filepath.Join(chartDir, "templates")
	entries, err := os.ReadDir(tdir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !(strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".tpl") || strings.HasSuffix(n, ".txt")) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(tdir, n))
		if err != nil {
			return err
		}
		if _, err := root.New(n).Parse(string(b)); err != nil {
			return err
		}
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasPrefix(n, "_") || !strings.HasSuffix(n, ".yaml") {
			continue
		}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, n, top); err != nil {
			return err
		}
		out := strings.TrimSpace(buf.String())
		if out == "" {
			continue
		}
		fmt.Printf("---\n# Source: %s/templates/%s\n%s\n", chart["name"], n, out)
	}
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}
