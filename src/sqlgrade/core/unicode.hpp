#pragma once
// Unicode text folding for comparisons, on top of utf8proc (Debian libutf8proc-dev): no hand-written
// character tables here. Every function accepts any bytes: a byte that is not part of a valid UTF-8
// sequence is read as the Latin-1 character of the same value (so a Latin-1 "Chéret" still folds
// like the UTF-8 one), nothing throws.
#include <string>
#include <string_view>

namespace sqlgrade::unicode {

// Whitespace as Python's str.isspace() sees it: Unicode Zs/Zl/Zp (U+00A0, U+2009, U+3000, …),
// TAB, LF, VT, FF, CR, U+001C–U+001F and U+0085.
bool is_space(char32_t cp);
// Unicode punctuation (categories Pc Pd Ps Pe Pi Pf Po) and ASCII punctuation/symbols (ispunct).
bool is_punct(char32_t cp);
// Unicode general categories L* (letters) and N* (numbers: Nd, Nl, No).
bool is_letter(char32_t cp);
bool is_number(char32_t cp);
bool is_digit(char32_t cp);  // ASCII 0-9 (after fold, other digits have become ASCII or stay letters)

// Decodes UTF-8 (invalid bytes as Latin-1) / encodes code points as UTF-8.
std::u32string decode(std::string_view s);
std::string encode(std::u32string_view s);

// Every run of whitespace becomes one ASCII space; both ends trimmed. Other characters are kept
// byte for byte (invalid UTF-8 included).
std::string collapse_space(std::string_view s);

// The comparison form of a text: compatibility composition (NFKC), full case folding, combining
// marks removed (so accents are ignored: "Chéret" = "Cheret" = "CHÉRET", NFD = NFC), default
// ignorable characters (zero-width space, soft hyphen, …) dropped, look-alike punctuation lumped
// (dashes and U+2212 MINUS SIGN → '-', typographic apostrophes → '\''), whitespace collapsed.
// ASCII-only input takes a fast path with the same result (lower case, whitespace collapsed).
std::string fold(std::string_view s);

// Removes quotation marks around the whole text, repeatedly, with the whitespace inside them:
// "\"-0.68\"" → "-0.68", "' x '" → "x", "“24”" → "24". An opening mark is ASCII " ' ` or a Unicode
// initial/final quote (Pi, Pf, „ ‚); a closing mark is ASCII " ' ` or Pi/Pf. Text without such a
// pair is returned trimmed.
std::string unquote(std::string_view s);

}  // namespace sqlgrade::unicode
