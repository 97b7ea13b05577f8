import { describe, expect, it } from 'vitest';
import { MAX_ATTRIBUTES_PER_ELEMENT, MAX_DEPTH, MAX_NAMESPACES_IN_SCOPE, markupProblem } from './saml-response-limits.js';

describe('markupProblem (one pass over the text, before any XML parsing)', () => {
  const elements = (n: number) => `<r>${'<e a="1"/>'.repeat(n - 1)}</r>`;

  it('counts start and self-closing tags up to the limit', () => {
    expect(markupProblem(elements(10), 10)).toBeNull();
    expect(markupProblem(elements(11), 10)).toBe('too-many-elements');
  });

  it('does not count what only looks like a tag: comments, CDATA, processing instructions, declarations, quoted values', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE r><r><!-- <a/><b/> --><![CDATA[<c/><d/>]]><?pi <e/>?><f v="x > <g/>"/></r>`;
    expect(markupProblem(xml, 2)).toBeNull();
    expect(markupProblem(xml, 1)).toBe('too-many-elements');
  });

  it(`refuses nesting deeper than ${MAX_DEPTH} levels, but not as many levels one after another`, () => {
    const deep = (levels: number) => '<x>'.repeat(levels) + '</x>'.repeat(levels);
    expect(markupProblem(deep(MAX_DEPTH), 10_000)).toBeNull();
    expect(markupProblem(deep(MAX_DEPTH + 1), 10_000)).toBe('too-complex');
    expect(markupProblem(`<r>${deep(MAX_DEPTH - 1).repeat(100)}</r>`, 10_000)).toBeNull();
  });

  it(`refuses an element with more than ${MAX_ATTRIBUTES_PER_ELEMENT} attributes (a ">" in a value is no end)`, () => {
    const attributes = (n: number) => Array.from({ length: n }, (_, i) => ` a${i} = '>'`).join('');
    expect(markupProblem(`<r${attributes(MAX_ATTRIBUTES_PER_ELEMENT)}/>`, 10)).toBeNull();
    expect(markupProblem(`<r${attributes(MAX_ATTRIBUTES_PER_ELEMENT + 1)}/>`, 10)).toBe('too-complex');
  });

  it(`counts the namespaces in scope: more than ${MAX_NAMESPACES_IN_SCOPE} on an element and its ancestors are refused, siblings' do not add up`, () => {
    const declaring = (n: number, from = 0) => Array.from({ length: n }, (_, i) => ` xmlns:p${from + i}="urn:p${from + i}"`).join('');
    const half = MAX_NAMESPACES_IN_SCOPE / 2;
    expect(markupProblem(`<r${declaring(half)}><e${declaring(half, half)}/></r>`, 10)).toBeNull();
    expect(markupProblem(`<r${declaring(half)}><e${declaring(half + 1, half)}/></r>`, 10)).toBe('too-complex');
    expect(markupProblem(`<r xmlns="urn:r"${declaring(MAX_NAMESPACES_IN_SCOPE - 1)}/>`, 10)).toBeNull();
    expect(markupProblem(`<r xmlns="urn:r"${declaring(MAX_NAMESPACES_IN_SCOPE)}/>`, 10)).toBe('too-complex');
    // As Okta writes group values: each declares xs and xsi, closed before the next.
    const value = `<v xmlns:xs="urn:xs" xmlns:xsi="urn:xsi" xsi:type="xs:string">g</v>`;
    expect(markupProblem(`<r${declaring(half)}>${value.repeat(500)}</r>`, 1000)).toBeNull();
  });

  it('stops at a tag that never ends: the parser refuses the document', () => {
    expect(markupProblem('<r><e a="never closed>', 10)).toBeNull();
    expect(markupProblem('<r><!-- never closed', 10)).toBeNull();
  });
});
