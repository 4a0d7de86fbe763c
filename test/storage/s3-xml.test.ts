import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { decodeXmlText, parseListObjectsV2, parseS3Error, parseXml, XmlError } from "../../src/storage/s3/xml.ts";

// A page as radosgw 16.2 sends it (keys with "&", "<", quotes, a space and "+", non-ASCII).
const RADOSGW_PAGE =
  '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>tbk2</Name><Prefix></Prefix><MaxKeys>2</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>' +
  "<Contents><Key>amp&amp;lt&lt;gt&gt;&apos;q&quot;</Key><LastModified>2026-11-30T07:58:23.643Z</LastModified><ETag>&quot;fbade9e36a3f36d3d676c1b808451dd7&quot;</ETag><Size>1</Size><StorageClass>STANDARD</StorageClass><Type>Normal</Type></Contents>" +
  "<Contents><Key>é世🚀</Key><Size>12345</Size></Contents>" +
  "<CommonPrefixes><Prefix>sp ace+/</Prefix></CommonPrefixes>" +
  "<NextContinuationToken>sp ace+/</NextContinuationToken><KeyCount>3</KeyCount></ListBucketResult>";

const xmlEscape = (s: string) => s.replace(/[&<>"']/g, (c) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[c]};`);

describe("ListObjectsV2 pages", () => {
  test("a radosgw page: keys decoded exactly, sizes, prefixes, continuation", () => {
    expect(parseListObjectsV2(RADOSGW_PAGE)).toEqual({
      objects: [
        { key: "amp&lt<gt>'q\"", size: 1 },
        { key: "é世🚀", size: 12345 },
      ],
      prefixes: ["sp ace+/"],
      isTruncated: true,
      nextContinuationToken: "sp ace+/",
    });
  });

  test("a last page has no continuation token", () => {
    const page = parseListObjectsV2("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>");
    expect(page).toEqual({ objects: [], prefixes: [], isTruncated: false });
  });

  const refused: Array<[string, string]> = [
    ["a truncated page without a token (would loop forever)", "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"],
    ["URL-encoded keys (never requested)", "<ListBucketResult><EncodingType>url</EncodingType></ListBucketResult>"],
    ["an object without a key", "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>"],
    ["a size that is not a number", "<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents></ListBucketResult>"],
    ["another document", "<Error><Code>AccessDenied</Code></Error>"],
  ];
  for (const [label, xml] of refused) {
    test(`refused: ${label}`, () => {
      expect(() => parseListObjectsV2(xml)).toThrow(XmlError);
    });
  }

  test("any key text survives escaping and parsing", () => {
    // Characters XML 1.0 can carry (workspace paths refuse C0 controls anyway).
    const char = fc.oneof(
      fc.constantFrom("&", "<", ">", '"', "'", ";", "#", " ", "+", "%", "/", "]]>", "&amp;"),
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.array(char, { minLength: 1, maxLength: 20 }), (parts) => {
        const key = parts.join("").replace(/[\u0000-\u001f\ufffe\uffff]/g, "x");
        const xml = `<ListBucketResult><Contents><Key>${xmlEscape(key)}</Key><Size>0</Size></Contents></ListBucketResult>`;
        expect(parseListObjectsV2(xml).objects[0].key).toBe(key);
      }),
    );
  });
});

describe("the XML reader", () => {
  test("character references, CDATA, comments, attributes with '>' in them, namespace prefixes", () => {
    const root = parseXml('<?xml version="1.0"?><!-- c --><s:R a="x>y" b=\'1\'><K>&#x1F680;&#233;</K><C><![CDATA[<raw> & ]]></C><E/></s:R>');
    expect(root.name).toBe("R");
    expect(root.children.map((c) => [c.name, c.text])).toEqual([
      ["K", "🚀é"],
      ["C", "<raw> & "],
      ["E", ""],
    ]);
  });

  const malformed: Array<[string, string]> = [
    ["a DOCTYPE (entity definitions, external entities)", '<!DOCTYPE r [<!ENTITY x "y">]><r>&x;</r>'],
    ["an undefined entity", "<r>&x;</r>"],
    ["a bare ampersand", "<r>a & b</r>"],
    ["a reference to a surrogate", "<r>&#xD800;</r>"],
    ["a reference beyond Unicode", "<r>&#x110000;</r>"],
    ["mismatched tags", "<r><a></b></r>"],
    ["an unclosed element", "<r><a>"],
    ["two roots", "<r/><s/>"],
    ["no root", "<?xml version='1.0'?>"],
    ["text outside the root", "junk<r/>"],
    ["nesting past the limit", `${"<a>".repeat(40)}${"</a>".repeat(40)}`],
  ];
  for (const [label, xml] of malformed) {
    test(`refused: ${label}`, () => {
      expect(() => parseXml(xml)).toThrow(XmlError);
    });
  }

  test("entity decoding is one pass: '&amp;lt;' is the text '&lt;'", () => {
    expect(decodeXmlText("&amp;lt;")).toBe("&lt;");
  });
});

describe("S3 error bodies", () => {
  test("code, message and request id", () => {
    expect(
      parseS3Error(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>PreconditionFailed</Code><Message>At least one</Message><RequestId>tx1</RequestId></Error>',
      ),
    ).toEqual({ code: "PreconditionFailed", message: "At least one", requestId: "tx1" });
  });

  test("an empty, HTML or broken body yields nothing rather than throwing", () => {
    expect(parseS3Error("")).toEqual({});
    expect(parseS3Error("<html><body>502 Bad Gateway</body></html>")).toEqual({});
    expect(parseS3Error("<Error><Code>x")).toEqual({});
  });
});
