package main

// values.schema.json (helm-template.md §5 step 2): every chart that has a schema validates
// its coalesced values with github.com/xeipuuv/gojsonschema (the validator of Helm 3 before
// 3.18), subcharts against their own table. The values go through YAML and back to JSON
// first (so 3.0 is the integer 3), `null` values become `{}`, and each failure is one
// `- FIELD: DESCRIPTION` line under a `CHART:` line; the caller adds
// "values don't meet the specifications of the schema(s) in the following chart(s):\n".
// Helm >= 3.18 validates with jsonschema v6 and words its errors differently: the schema
// cases whose values fail state Helm v3.21's message in a want-error section instead.

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/xeipuuv/gojsonschema"
	"sigs.k8s.io/yaml"
)

// validateSchemas checks c and its subcharts; the error text lists every failing chart.
func validateSchemas(c *Chart, values map[string]interface{}) error {
	var sb strings.Builder
	if c.Schema != nil {
		if err := validateOneSchema(values, c.Schema); err != nil {
			fmt.Fprintf(&sb, "%s:\n%s", c.Meta.Name, err.Error())
		}
	}
	for _, sub := range c.Subcharts {
		subValues, _ := values[sub.Meta.Name].(map[string]interface{})
		if err := validateSchemas(sub, subValues); err != nil {
			sb.WriteString(err.Error())
		}
	}
	if sb.Len() > 0 {
		return errors.New(sb.String())
	}
	return nil
}

func validateOneSchema(values map[string]interface{}, schema []byte) (reterr error) {
	defer func() {
		if r := recover(); r != nil {
			reterr = fmt.Errorf("unable to validate schema: %s", r)
		}
	}()
	data, err := yaml.Marshal(values)
	if err != nil {
		return err
	}
	valuesJSON, err := yaml.YAMLToJSON(data)
	if err != nil {
		return err
	}
	if bytes.Equal(valuesJSON, []byte("null")) {
		valuesJSON = []byte("{}")
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(valuesJSON))
	if err != nil {
		return err
	}
	if result.Valid() {
		return nil
	}
	var sb strings.Builder
	for _, desc := range result.Errors() {
		fmt.Fprintf(&sb, "- %s\n", desc)
	}
	return errors.New(sb.String())
}
