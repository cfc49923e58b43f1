import { csvField } from "../accounting-export"

describe("csvField", () => {
  it("quotes a field with a comma, quote or line break, doubling its quotes", () => {
    expect(csvField("plain")).toBe("plain")
    expect(csvField('a,"b"')).toBe('"a,""b"""')
    expect(csvField("line\nbreak")).toBe('"line\nbreak"')
    expect(csvField(null)).toBe("")
  })

  it("keeps a spreadsheet from running a text as a formula, and leaves amounts, negative ones too, as numbers", () => {
    expect(csvField("=HYPERLINK(\"http://evil\")")).toBe("\"'=HYPERLINK(\"\"http://evil\"\")\"")
    expect(csvField("+1+1")).toBe("'+1+1")
    expect(csvField("@SUM(A1)")).toBe("'@SUM(A1)")
    expect(csvField("-2+3")).toBe("'-2+3")
    expect(csvField("\tcmd")).toBe("'\tcmd")
    expect(csvField("-1.25")).toBe("-1.25")
    expect(csvField("0.001")).toBe("0.001")
    expect(csvField(-3)).toBe("-3")
  })
})
