-- photosync library schema for PostgreSQL, migration 5: what compiled predicates call for their string
-- operators with [c] (case-insensitive) and [d] (diacritic-insensitive).
--
-- FetchPredicate compares folded strings: the value is folded here, in SQL; the pattern is folded in Swift
-- before it is bound. Folding is Foundation's `folding(options:locale: nil)` between NFD and NFC (see
-- StringMatching.swift), which works on clusters of a character and its combining marks. This function
-- models it from per-scalar data that the store writes at every open from the running Swift's Foundation
-- (`fetchpredicate_scalar`, see PredicateFoldTable.swift), so both engines fold with the same Unicode data.
-- README.md has the rules and how they are checked against Foundation.

CREATE TABLE fetchpredicate_scalar (
    scalar TEXT COLLATE "C" PRIMARY KEY,       -- one Unicode scalar that occurs in NFD text
    caseFold TEXT COLLATE "C",                 -- its case folding, when that differs from it
    caseFoldBase TEXT COLLATE "C",             -- the case folding without its non-base characters
    nonBase BOOLEAN NOT NULL,                  -- a combining character that [d] drops after a Latin letter
    combiningClass SMALLINT NOT NULL           -- its canonical combining class (orders kept marks)
);

-- One row: the digest of the data in fetchpredicate_scalar, so that an open rewrites it only when it changed.
CREATE TABLE fetchpredicate_fold_version (
    id SMALLINT PRIMARY KEY CHECK (id = 1),
    digest TEXT COLLATE "C" NOT NULL
);

-- fetchpredicate_fold(value, options): value folded under options (1 = [c], 2 = [d], 3 = [cd]).
CREATE FUNCTION fetchpredicate_fold(value TEXT, options BIGINT) RETURNS TEXT
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
DECLARE
    chars TEXT[]; folds TEXT[]; bases TEXT[]; nonbase BOOLEAN[]; classes SMALLINT[];
    result TEXT := ''; n INTEGER; i INTEGER := 1; b TEXT; e INTEGER; folded BOOLEAN;
    run TEXT[]; runClasses SMALLINT[]; first BOOLEAN; j INTEGER; k INTEGER; t TEXT; tc SMALLINT;
BEGIN
    IF options & 3 = 0 THEN RETURN value; END IF;
    IF octet_length(value) = char_length(value) THEN            -- ASCII: no marks; [c] lowercases A-Z
        IF options & 1 = 1 THEN RETURN lower(value COLLATE "C"); END IF;
        RETURN value;
    END IF;
    SELECT array_agg(c.ch ORDER BY c.n), array_agg(s.caseFold ORDER BY c.n), array_agg(s.caseFoldBase ORDER BY c.n),
           array_agg(coalesce(s.nonBase, false) ORDER BY c.n), array_agg(coalesce(s.combiningClass, 0::smallint) ORDER BY c.n)
      INTO chars, folds, bases, nonbase, classes
      FROM unnest(regexp_split_to_array(normalize(value, NFD), '')) WITH ORDINALITY AS c(ch, n)
      LEFT JOIN fetchpredicate_scalar s ON s.scalar = c.ch;
    n := coalesce(array_length(chars, 1), 0);
    IF options & 2 = 0 THEN                                     -- [c] alone folds scalar by scalar
        FOR i IN 1..n LOOP result := result || coalesce(folds[i], chars[i]); END LOOP;
        RETURN normalize(result, NFC);
    END IF;
    WHILE i <= n LOOP                                           -- [d], [cd]: one cluster at a time
        b := chars[i];
        folded := options & 1 = 1 AND folds[i] IS NOT NULL;
        run := '{}'; runClasses := '{}';
        IF folded THEN
            result := result || CASE WHEN ascii(b) < 1296 THEN bases[i] ELSE folds[i] END;
            e := ascii(right(folds[i], 1));
        ELSIF nonbase[i] THEN                                   -- a mark that starts the text
            run := ARRAY[b]; runClasses := ARRAY[classes[i]]; e := ascii(b);
        ELSE
            result := result || b; e := ascii(b);
        END IF;
        i := i + 1;
        first := true;
        WHILE i <= n AND nonbase[i] LOOP
            -- After a Latin, Greek or Cyrillic letter (below U+0510) every mark goes; after another
            -- character, the first mark goes when it is below U+0510 too, and the marks after it stay.
            IF e >= 1296 AND (folded OR NOT first OR ascii(chars[i]) > 1295) THEN
                run := run || chars[i]; runClasses := runClasses || classes[i];
            END IF;
            first := false;
            i := i + 1;
        END LOOP;
        -- The kept marks in a stable order of their combining classes.
        FOR j IN 2..coalesce(array_length(run, 1), 0) LOOP
            t := run[j]; tc := runClasses[j]; k := j - 1;
            WHILE k >= 1 AND runClasses[k] > tc LOOP
                run[k + 1] := run[k]; runClasses[k + 1] := runClasses[k]; k := k - 1;
            END LOOP;
            run[k + 1] := t; runClasses[k + 1] := tc;
        END LOOP;
        result := result || array_to_string(run, '');
    END LOOP;
    RETURN normalize(result, NFC);
END
$$;
