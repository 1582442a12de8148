package gen

import (
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Short names for the validation error kinds the messages are written for.
type (
	kindAnyOf                = kind.AnyOf
	kindOneOf                = kind.OneOf
	kindType                 = kind.Type
	kindRequired             = kind.Required
	kindEnum                 = kind.Enum
	kindPattern              = kind.Pattern
	kindMinLength            = kind.MinLength
	kindMinItems             = kind.MinItems
	kindMinimum              = kind.Minimum
	kindMaximum              = kind.Maximum
	kindAdditionalProperties = kind.AdditionalProperties
)

var englishPrinter = message.NewPrinter(language.English)
