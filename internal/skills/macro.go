package skills

import (
	"fmt"
	"sort"
)

// MacroTool is an instructional tool advertised for a name in an installed
// skill's tools list that no catalog or workspace tool provides: calling
// it returns the skill's instructions for the agent to carry out.
type MacroTool struct {
	Name        string
	Description string
	SkillID     string
	SkillName   string

	skill *Installed
}

// MacroDescription is the description of a macro tool of the skill named
// skillName.
func MacroDescription(skillName string) string {
	return "Instructional macro tool from skill: " + skillName
}

// MacroToolInputSchema is the input schema of every macro tool.
const MacroToolInputSchema = `{"type":"object"}`

// MacroTools are the macro tools of the snapshot, sorted by name. taken
// says whether a name is already a catalog or workspace tool (nil: none
// is). Skills are visited by id, so when several skills name the same
// tool the first by id wins; a name that is not a valid tool name yields
// no macro tool but a warning (it still counts in its skill's allowlist).
func (s *Snapshot) MacroTools(taken func(name string) bool) ([]MacroTool, []string) {
	tools := []MacroTool{}
	var warnings []string
	owner := map[string]string{}
	for _, in := range s.skills {
		for _, name := range in.Tools {
			switch {
			case !ValidToolName(name):
				warnings = append(warnings, fmt.Sprintf("skill %s: tool %q is not a valid tool name: no macro tool", in.ID, name))
			case taken != nil && taken(name):
			case owner[name] != "":
				if owner[name] != in.ID {
					warnings = append(warnings, fmt.Sprintf("skill %s: macro tool %q is already provided by skill %s", in.ID, name, owner[name]))
				}
			default:
				owner[name] = in.ID
				tools = append(tools, MacroTool{Name: name, Description: MacroDescription(in.Name),
					SkillID: in.ID, SkillName: in.Name, skill: in})
			}
		}
	}
	sort.Slice(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	return tools, warnings
}

// Text is what calling the macro tool returns.
func (m MacroTool) Text() string { return MacroText(m.skill.Skill) }

// MacroText is the result text of a macro tool of sk: an instruction to
// carry out the skill's body.
func MacroText(sk *Skill) string {
	return fmt.Sprintf("This tool is an instruction from skill '%s'. Carry out the steps below yourself.\n\n%s", sk.Name, sk.Body)
}
