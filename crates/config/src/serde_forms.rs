//! Serde forms shared by the file types.

use std::fmt;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserializer, MapAccess, Visitor};

/// Reads either a keyword or a mapping into `T`, with the mapping's own errors in place.
pub(crate) fn keyword_or_map<'de, D, T, R>(
    deserializer: D,
    what: &'static str,
    keyword: &'static str,
    from_keyword: fn() -> R,
    from_map: fn(T) -> R,
) -> Result<R, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct KeywordOrMap<T, R> {
        what: &'static str,
        keyword: &'static str,
        from_keyword: fn() -> R,
        from_map: fn(T) -> R,
    }
    impl<'de, T: Deserialize<'de>, R> Visitor<'de> for KeywordOrMap<T, R> {
        type Value = R;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "`{}` or {}", self.keyword, self.what)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<R, E> {
            if v == self.keyword {
                Ok((self.from_keyword)())
            } else {
                Err(E::custom(format!(
                    "{v:?}: write `{}` or {}",
                    self.keyword, self.what
                )))
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<R, A::Error> {
            T::deserialize(MapAccessDeserializer::new(map)).map(self.from_map)
        }
    }
    deserializer.deserialize_any(KeywordOrMap {
        what,
        keyword,
        from_keyword,
        from_map,
    })
}
