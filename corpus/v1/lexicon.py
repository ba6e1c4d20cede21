"""English-German lexicon for the synthetic translation corpus (see corpus.py).

Every entry carries the grammatical information German needs: noun gender,
plural and dative plural, weak ("n-declension") singular forms, full present
tense conjugation, participle and perfect auxiliary, preposition case.
Semantic classes ("person", "food", ...) keep the sampled sentences sensible:
dogs eat cakes, people read books, nobody reads a horse.

Person indices used throughout: 0=ich/i, 1=du/you, 2=er-sie-es/he-she-it,
3=wir/we, 4=ihr/you all, 5=sie/they.
"""

from __future__ import annotations

from dataclasses import dataclass

# --------------------------------------------------------------------------- nouns


@dataclass(frozen=True)
class Noun:
    en: str
    en_plural: str
    de: str
    gender: str  # "m" | "f" | "n"
    de_plural: str
    de_dative_plural: str
    de_oblique: str  # accusative/dative singular (differs only for weak nouns)
    classes: frozenset[str]
    mass: bool = False  # uncountable: no plural, no "a"/numbers

    @property
    def weak(self) -> bool:
        return self.de_oblique != self.de


def _en_plural(word: str) -> str:
    if word.endswith(("s", "sh", "ch", "x")):
        return word + "es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def noun(
    en: str,
    de: str,
    gender: str,
    de_plural: str,
    classes: str,
    en_plural: str | None = None,
    oblique: str | None = None,
) -> Noun:
    # German dative plural adds -n unless the plural already ends in -n or -s.
    dat_pl = de_plural if de_plural.endswith(("n", "s")) else de_plural + "n"
    return Noun(
        en=en,
        en_plural=en_plural or _en_plural(en),
        de=de,
        gender=gender,
        de_plural=de_plural,
        de_dative_plural=dat_pl,
        de_oblique=oblique or de,
        classes=frozenset(classes.split()),
    )


def mass(en: str, de: str, gender: str, classes: str) -> Noun:
    return Noun(en, en, de, gender, de, de, de, frozenset(classes.split()), mass=True)


NOUNS: tuple[Noun, ...] = (
    # people
    noun("man", "Mann", "m", "Männer", "person", en_plural="men"),
    noun("woman", "Frau", "f", "Frauen", "person", en_plural="women"),
    noun("child", "Kind", "n", "Kinder", "person", en_plural="children"),
    noun("teacher", "Lehrer", "m", "Lehrer", "person"),
    noun("student", "Student", "m", "Studenten", "person", oblique="Studenten"),
    noun("pupil", "Schüler", "m", "Schüler", "person"),
    noun("doctor", "Arzt", "m", "Ärzte", "person"),
    noun("friend", "Freund", "m", "Freunde", "person"),
    noun("girl", "Mädchen", "n", "Mädchen", "person"),
    noun("boy", "Junge", "m", "Jungen", "person", oblique="Jungen"),
    noun("baby", "Baby", "n", "Babys", "person"),
    noun("mother", "Mutter", "f", "Mütter", "person"),
    noun("father", "Vater", "m", "Väter", "person"),
    noun("brother", "Bruder", "m", "Brüder", "person"),
    noun("sister", "Schwester", "f", "Schwestern", "person"),
    noun("grandmother", "Großmutter", "f", "Großmütter", "person"),
    noun("grandfather", "Großvater", "m", "Großväter", "person"),
    noun("neighbor", "Nachbar", "m", "Nachbarn", "person", oblique="Nachbarn"),
    noun("farmer", "Bauer", "m", "Bauern", "person", oblique="Bauern"),
    noun("king", "König", "m", "Könige", "person"),
    noun("queen", "Königin", "f", "Königinnen", "person"),
    noun("cook", "Koch", "m", "Köche", "person"),
    # animals
    noun("dog", "Hund", "m", "Hunde", "animal"),
    noun("cat", "Katze", "f", "Katzen", "animal"),
    noun("horse", "Pferd", "n", "Pferde", "animal"),
    noun("bird", "Vogel", "m", "Vögel", "animal"),
    noun("mouse", "Maus", "f", "Mäuse", "animal", en_plural="mice"),
    noun("cow", "Kuh", "f", "Kühe", "animal"),
    noun("fish", "Fisch", "m", "Fische", "animal", en_plural="fish"),
    noun("pig", "Schwein", "n", "Schweine", "animal"),
    noun("duck", "Ente", "f", "Enten", "animal"),
    noun("sheep", "Schaf", "n", "Schafe", "animal", en_plural="sheep"),
    noun("rabbit", "Kaninchen", "n", "Kaninchen", "animal"),
    noun("lion", "Löwe", "m", "Löwen", "animal", oblique="Löwen"),
    noun("elephant", "Elefant", "m", "Elefanten", "animal", oblique="Elefanten"),
    noun("bear", "Bär", "m", "Bären", "animal", oblique="Bären"),
    noun("monkey", "Affe", "m", "Affen", "animal", oblique="Affen"),
    # food
    noun("apple", "Apfel", "m", "Äpfel", "food"),
    noun("bread", "Brot", "n", "Brote", "food"),
    noun("cake", "Kuchen", "m", "Kuchen", "food"),
    noun("banana", "Banane", "f", "Bananen", "food"),
    noun("egg", "Ei", "n", "Eier", "food"),
    noun("soup", "Suppe", "f", "Suppen", "food"),
    noun("pizza", "Pizza", "f", "Pizzas", "food"),
    noun("carrot", "Karotte", "f", "Karotten", "food"),
    noun("cookie", "Keks", "m", "Kekse", "food"),
    noun("orange", "Orange", "f", "Orangen", "food"),
    noun("sausage", "Wurst", "f", "Würste", "food"),
    # drinks (uncountable)
    mass("milk", "Milch", "f", "drink"),
    mass("water", "Wasser", "n", "drink"),
    mass("tea", "Tee", "m", "drink"),
    mass("coffee", "Kaffee", "m", "drink"),
    mass("juice", "Saft", "m", "drink"),
    # texts
    noun("book", "Buch", "n", "Bücher", "text thing"),
    noun("letter", "Brief", "m", "Briefe", "text thing"),
    noun("story", "Geschichte", "f", "Geschichten", "text"),
    noun("newspaper", "Zeitung", "f", "Zeitungen", "text thing"),
    noun("song", "Lied", "n", "Lieder", "text"),
    noun("poem", "Gedicht", "n", "Gedichte", "text"),
    noun("word", "Wort", "n", "Wörter", "text"),
    noun("question", "Frage", "f", "Fragen", "text"),
    # things
    noun("car", "Auto", "n", "Autos", "thing vehicle"),
    noun("bicycle", "Fahrrad", "n", "Fahrräder", "thing vehicle"),
    noun("ball", "Ball", "m", "Bälle", "thing toy"),
    noun("toy", "Spielzeug", "n", "Spielzeuge", "thing toy"),
    noun("table", "Tisch", "m", "Tische", "thing furniture"),
    noun("chair", "Stuhl", "m", "Stühle", "thing furniture"),
    noun("pen", "Stift", "m", "Stifte", "thing"),
    noun("pencil", "Bleistift", "m", "Bleistifte", "thing"),
    noun("notebook", "Heft", "n", "Hefte", "thing"),
    noun("picture", "Bild", "n", "Bilder", "thing"),
    noun("flower", "Blume", "f", "Blumen", "thing"),
    noun("cup", "Tasse", "f", "Tassen", "thing"),
    noun("key", "Schlüssel", "m", "Schlüssel", "thing"),
    noun("bag", "Tasche", "f", "Taschen", "thing"),
    noun("box", "Kiste", "f", "Kisten", "thing"),
    noun("shoe", "Schuh", "m", "Schuhe", "thing"),
    noun("hat", "Hut", "m", "Hüte", "thing"),
    noun("door", "Tür", "f", "Türen", "thing"),
    noun("window", "Fenster", "n", "Fenster", "thing"),
    noun("computer", "Computer", "m", "Computer", "thing"),
    noun("phone", "Telefon", "n", "Telefone", "thing"),
    noun("clock", "Uhr", "f", "Uhren", "thing"),
    noun("map", "Karte", "f", "Karten", "thing"),
    noun("present", "Geschenk", "n", "Geschenke", "thing"),
    # places
    noun("house", "Haus", "n", "Häuser", "place thing"),
    noun("school", "Schule", "f", "Schulen", "place"),
    noun("park", "Park", "m", "Parks", "place"),
    noun("garden", "Garten", "m", "Gärten", "place"),
    noun("city", "Stadt", "f", "Städte", "place"),
    noun("village", "Dorf", "n", "Dörfer", "place"),
    noun("shop", "Geschäft", "n", "Geschäfte", "place"),
    noun("supermarket", "Supermarkt", "m", "Supermärkte", "place"),
    noun("station", "Bahnhof", "m", "Bahnhöfe", "place"),
    noun("library", "Bibliothek", "f", "Bibliotheken", "place"),
    noun("kitchen", "Küche", "f", "Küchen", "place"),
    noun("office", "Büro", "n", "Büros", "place"),
    noun("hospital", "Krankenhaus", "n", "Krankenhäuser", "place"),
    noun("zoo", "Zoo", "m", "Zoos", "place"),
    noun("forest", "Wald", "m", "Wälder", "place"),
    noun("museum", "Museum", "n", "Museen", "place"),
    noun("restaurant", "Restaurant", "n", "Restaurants", "place"),
    noun("church", "Kirche", "f", "Kirchen", "place"),
    noun("classroom", "Klassenzimmer", "n", "Klassenzimmer", "place"),
)
NOUN_BY_EN: dict[str, Noun] = {n.en: n for n in NOUNS}

# ---------------------------------------------------------------------- adjectives


@dataclass(frozen=True)
class Adjective:
    en: str
    de: str  # declension stem: "klein" -> kleine/kleinen/kleiner/kleines
    classes: frozenset[str]  # noun classes it sensibly modifies


def adj(en: str, de: str, classes: str = "person animal thing place food text") -> Adjective:
    return Adjective(en, de, frozenset(classes.split()))


ADJECTIVES: tuple[Adjective, ...] = (
    adj("small", "klein"),
    adj("big", "groß"),
    adj("old", "alt"),
    adj("good", "gut"),
    adj("beautiful", "schön"),
    adj("new", "neu", "thing place text"),
    adj("young", "jung", "person animal"),
    adj("happy", "glücklich", "person animal"),
    adj("sad", "traurig", "person animal"),
    adj("tired", "müd", "person animal"),  # müde, müden, müder
    adj("hungry", "hungrig", "person animal"),
    adj("nice", "nett", "person"),
    adj("friendly", "freundlich", "person animal"),
    adj("clever", "klug", "person animal"),
    adj("strong", "stark", "person animal"),
    adj("sick", "krank", "person animal"),
    adj("famous", "berühmt", "person place text"),
    adj("funny", "lustig", "person animal text"),
    adj("fast", "schnell", "animal vehicle"),
    adj("slow", "langsam", "animal vehicle"),
    adj("red", "rot", "thing"),
    adj("blue", "blau", "thing"),
    adj("green", "grün", "thing"),
    adj("yellow", "gelb", "thing"),
    adj("black", "schwarz", "animal thing"),
    adj("white", "weiß", "animal thing"),
    adj("brown", "braun", "animal thing"),
    adj("expensive", "teur", "thing vehicle"),  # teuer drops its e when declined
    adj("cheap", "billig", "thing vehicle"),
    adj("heavy", "schwer", "thing"),
    adj("empty", "leer", "thing"),
    adj("dirty", "schmutzig", "thing animal place"),
    adj("clean", "sauber", "thing place"),
    adj("long", "lang", "text"),
    adj("short", "kurz", "text"),
    adj("interesting", "interessant", "text place"),
    adj("quiet", "ruhig", "place person animal"),
    adj("warm", "warm", "food"),
    adj("cold", "kalt", "food"),
    adj("fresh", "frisch", "food"),
)
ADJ_BY_EN: dict[str, Adjective] = {a.en: a for a in ADJECTIVES}

# --------------------------------------------------------------------------- verbs


@dataclass(frozen=True)
class Verb:
    key: str  # unique id ("know" = kennen, "know_that" = wissen)
    en: str  # base form
    en_3sg: str
    en_participle: str
    de_infinitive: str
    de_present: tuple[str, str, str, str, str, str]  # ich du er wir ihr sie
    de_participle: str
    aux: str  # perfect auxiliary: "haben" | "sein"
    frame: str  # "intrans" | "acc" | "dat" | "dat_acc" | "that"
    subject: frozenset[str]  # noun classes allowed as subject
    obj: frozenset[str]  # classes of the accusative object (dative for frame "dat")
    iobj: frozenset[str]  # classes of the dative object of dat_acc verbs
    preps: tuple[str, ...]  # prepositions (keys of PREPOSITIONS) that fit this verb


def _regular_present(inf: str) -> tuple[str, ...]:
    stem = inf[:-2]
    # arbeiten, finden, öffnen: an -e- keeps the ending audible.
    if stem.endswith(("t", "d")) or (stem.endswith(("n", "m")) and stem[-2] not in "aeiouählrnm"):
        return (stem + "e", stem + "est", stem + "et", inf, stem + "et", inf)
    # tanzen, reisen: du tanzt (not *tanzst)
    if stem.endswith(("s", "ß", "z", "x")):
        return (stem + "e", stem + "t", stem + "t", inf, stem + "t", inf)
    return (stem + "e", stem + "st", stem + "t", inf, stem + "t", inf)


def _en_3sg(base: str) -> str:
    if base == "have":
        return "has"
    if base.endswith(("s", "sh", "ch", "x", "o")):
        return base + "es"
    if base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ies"
    return base + "s"


def _en_past(base: str) -> str:
    if base.endswith("e"):
        return base + "d"
    if base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ied"
    return base + "ed"


PEOPLE = "person"
ANIMATE = "person animal"


def verb(
    en: str,
    de: str,
    participle: str,
    frame: str,
    obj: str = "",
    *,
    en_participle: str | None = None,
    present: str | None = None,
    aux: str = "haben",
    subject: str = PEOPLE,
    iobj: str = "",
    preps: str = "",
    key: str | None = None,
) -> Verb:
    forms = tuple(present.split()) if present else _regular_present(de)
    assert len(forms) == 6, en
    return Verb(
        key=key or en,
        en=en,
        en_3sg=_en_3sg(en),
        en_participle=en_participle or _en_past(en),
        de_infinitive=de,
        de_present=forms,  # type: ignore[arg-type]
        de_participle=participle,
        aux=aux,
        frame=frame,
        subject=frozenset(subject.split()),
        obj=frozenset(obj.split()),
        iobj=frozenset(iobj.split()),
        preps=tuple(preps.split()),
    )


# Preposition groups by verb type: static verbs take a location ("in the park"),
# motion verbs a destination ("to the school").
STATIC = "with without in"
MOTION = "to with without"

VERBS: tuple[Verb, ...] = (
    # accusative object
    verb(
        "see",
        "sehen",
        "gesehen",
        "acc",
        "person animal thing place food",
        en_participle="seen",
        present="sehe siehst sieht sehen seht sehen",
        subject=ANIMATE,
        preps=STATIC,
    ),
    verb(
        "have",
        "haben",
        "gehabt",
        "acc",
        "person animal thing food text",
        en_participle="had",
        present="habe hast hat haben habt haben",
        subject=ANIMATE,
    ),
    verb(
        "like",
        "mögen",
        "gemocht",
        "acc",
        "person animal thing food text drink place",
        present="mag magst mag mögen mögt mögen",
        subject=ANIMATE,
    ),
    verb("love", "lieben", "geliebt", "acc", "person animal food drink"),
    verb(
        "eat",
        "essen",
        "gegessen",
        "acc",
        "food",
        en_participle="eaten",
        present="esse isst isst essen esst essen",
        subject=ANIMATE,
        preps=STATIC,
    ),
    verb(
        "drink",
        "trinken",
        "getrunken",
        "acc",
        "drink",
        en_participle="drunk",
        subject=ANIMATE,
        preps=STATIC,
    ),
    verb(
        "read",
        "lesen",
        "gelesen",
        "acc",
        "text",
        en_participle="read",
        present="lese liest liest lesen lest lesen",
        preps=STATIC,
    ),
    verb(
        "write",
        "schreiben",
        "geschrieben",
        "acc",
        "text",
        en_participle="written",
        preps=STATIC + " for",
    ),
    verb(
        "buy",
        "kaufen",
        "gekauft",
        "acc",
        "thing food animal drink",
        en_participle="bought",
        preps=STATIC + " for",
    ),
    verb(
        "sell",
        "verkaufen",
        "verkauft",
        "acc",
        "thing food animal vehicle",
        en_participle="sold",
        preps=STATIC,
    ),
    verb(
        "find",
        "finden",
        "gefunden",
        "acc",
        "thing animal person food",
        en_participle="found",
        subject=ANIMATE,
        preps=STATIC,
    ),
    verb("visit", "besuchen", "besucht", "acc", "person place"),
    verb(
        "know",
        "kennen",
        "gekannt",
        "acc",
        "person animal place text",
        en_participle="known",
        key="know",
    ),
    verb("need", "brauchen", "gebraucht", "acc", "thing food person text"),
    verb(
        "hear",
        "hören",
        "gehört",
        "acc",
        "person animal text",
        en_participle="heard",
        subject=ANIMATE,
        preps=STATIC,
    ),
    verb("ask", "fragen", "gefragt", "acc", "person"),
    verb("call", "rufen", "gerufen", "acc", "person animal"),
    verb("open", "öffnen", "geöffnet", "acc", "thing"),
    verb(
        "carry",
        "tragen",
        "getragen",
        "acc",
        "thing person animal",
        present="trage trägst trägt tragen tragt tragen",
        subject=ANIMATE,
        preps=STATIC,
    ),
    verb(
        "wash",
        "waschen",
        "gewaschen",
        "acc",
        "thing animal person",
        present="wasche wäschst wäscht waschen wascht waschen",
        preps=STATIC,
    ),
    verb(
        "take",
        "nehmen",
        "genommen",
        "acc",
        "thing food",
        en_participle="taken",
        present="nehme nimmst nimmt nehmen nehmt nehmen",
    ),
    verb(
        "catch",
        "fangen",
        "gefangen",
        "acc",
        "animal thing",
        en_participle="caught",
        present="fange fängst fängt fangen fangt fangen",
        subject=ANIMATE,
        preps=STATIC,
    ),
    verb("learn", "lernen", "gelernt", "acc", "text", preps=STATIC),
    verb("cook", "kochen", "gekocht", "acc", "food", preps=STATIC + " for"),
    verb(
        "make",
        "machen",
        "gemacht",
        "acc",
        "food thing",
        en_participle="made",
        preps=STATIC + " for",
    ),
    verb("paint", "malen", "gemalt", "acc", "person animal thing place", preps=STATIC + " for"),
    verb(
        "draw",
        "zeichnen",
        "gezeichnet",
        "acc",
        "person animal thing place",
        en_participle="drawn",
        preps=STATIC + " for",
        present="zeichne zeichnest zeichnet zeichnen zeichnet zeichnen",
    ),
    verb(
        "meet",
        "treffen",
        "getroffen",
        "acc",
        "person",
        en_participle="met",
        present="treffe triffst trifft treffen trefft treffen",
        preps=STATIC,
    ),
    verb(
        "forget",
        "vergessen",
        "vergessen",
        "acc",
        "thing person text",
        en_participle="forgotten",
        present="vergesse vergisst vergisst vergessen vergesst vergessen",
    ),
    verb("understand", "verstehen", "verstanden", "acc", "person text", en_participle="understood"),
    verb("build", "bauen", "gebaut", "acc", "thing", en_participle="built", preps=STATIC + " for"),
    # dative object
    verb(
        "help",
        "helfen",
        "geholfen",
        "dat",
        "person animal",
        present="helfe hilfst hilft helfen helft helfen",
        preps=STATIC,
    ),
    verb("thank", "danken", "gedankt", "dat", "person"),
    verb("follow", "folgen", "gefolgt", "dat", "person animal", aux="sein", subject=ANIMATE),
    verb("answer", "antworten", "geantwortet", "dat", "person"),
    # dative + accusative
    verb(
        "give",
        "geben",
        "gegeben",
        "dat_acc",
        "thing food text",
        en_participle="given",
        present="gebe gibst gibt geben gebt geben",
        iobj="person animal",
    ),
    verb(
        "show",
        "zeigen",
        "gezeigt",
        "dat_acc",
        "thing animal text place",
        en_participle="shown",
        iobj="person",
    ),
    verb(
        "send",
        "schicken",
        "geschickt",
        "dat_acc",
        "thing text",
        en_participle="sent",
        iobj="person",
    ),
    verb(
        "bring",
        "bringen",
        "gebracht",
        "dat_acc",
        "thing food drink",
        en_participle="brought",
        iobj="person animal",
    ),
    verb("tell", "erzählen", "erzählt", "dat_acc", "text", en_participle="told", iobj="person"),
    # intransitive
    verb(
        "sleep",
        "schlafen",
        "geschlafen",
        "intrans",
        en_participle="slept",
        present="schlafe schläfst schläft schlafen schlaft schlafen",
        subject=ANIMATE,
        preps="in",
    ),
    verb("play", "spielen", "gespielt", "intrans", subject=ANIMATE, preps=STATIC),
    verb("work", "arbeiten", "gearbeitet", "intrans", preps=STATIC + " for"),
    verb("laugh", "lachen", "gelacht", "intrans", preps=STATIC),
    verb(
        "sing",
        "singen",
        "gesungen",
        "intrans",
        en_participle="sung",
        subject=ANIMATE,
        preps=STATIC + " for",
    ),
    verb("dance", "tanzen", "getanzt", "intrans", preps=STATIC),
    verb("wait", "warten", "gewartet", "intrans", subject=ANIMATE, preps=STATIC),
    verb("cry", "weinen", "geweint", "intrans", preps="in"),
    verb(
        "swim",
        "schwimmen",
        "geschwommen",
        "intrans",
        en_participle="swum",
        aux="sein",
        subject=ANIMATE,
        preps="with without",
    ),
    # motion (perfect with sein)
    verb(
        "go",
        "gehen",
        "gegangen",
        "intrans",
        en_participle="gone",
        aux="sein",
        subject=ANIMATE,
        preps=MOTION,
    ),
    verb(
        "come",
        "kommen",
        "gekommen",
        "intrans",
        en_participle="come",
        aux="sein",
        subject=ANIMATE,
        preps=MOTION + " from",
    ),
    verb(
        "run",
        "laufen",
        "gelaufen",
        "intrans",
        en_participle="run",
        aux="sein",
        present="laufe läufst läuft laufen lauft laufen",
        subject=ANIMATE,
        preps=MOTION,
    ),
    verb(
        "drive",
        "fahren",
        "gefahren",
        "intrans",
        en_participle="driven",
        aux="sein",
        present="fahre fährst fährt fahren fahrt fahren",
        preps=MOTION + " from",
    ),
    verb(
        "fly",
        "fliegen",
        "geflogen",
        "intrans",
        en_participle="flown",
        aux="sein",
        subject=ANIMATE,
        preps="to from with without",
    ),
    # verbs taking a "that"-clause
    verb(
        "know",
        "wissen",
        "gewusst",
        "that",
        en_participle="known",
        present="weiß weißt weiß wissen wisst wissen",
        key="know_that",
    ),
    verb("think", "denken", "gedacht", "that", en_participle="thought"),
    verb("say", "sagen", "gesagt", "that", en_participle="said"),
    verb("hope", "hoffen", "gehofft", "that"),
    verb("believe", "glauben", "geglaubt", "that"),
)
VERB_BY_KEY: dict[str, Verb] = {v.key: v for v in VERBS}

# ------------------------------------------------------------------ modal verbs


@dataclass(frozen=True)
class Modal:
    key: str
    en: str  # finite English form (person independent except "want")
    en_3sg: str
    en_negated: tuple[str, ...]  # English tokens replacing "can" when negated
    de_present: tuple[str, ...]
    de_negated_present: tuple[str, ...]  # "must not" = "darf nicht", not "muss nicht"


MODALS: tuple[Modal, ...] = (
    Modal(
        "can",
        "can",
        "can",
        ("cannot",),
        ("kann", "kannst", "kann", "können", "könnt", "können"),
        ("kann", "kannst", "kann", "können", "könnt", "können"),
    ),
    Modal(
        "must",
        "must",
        "must",
        ("must", "not"),
        ("muss", "musst", "muss", "müssen", "müsst", "müssen"),
        ("darf", "darfst", "darf", "dürfen", "dürft", "dürfen"),
    ),
    # "want to" needs do-support in negation/questions, handled in corpus.py
    Modal(
        "want",
        "want",
        "wants",
        ("want",),
        ("will", "willst", "will", "wollen", "wollt", "wollen"),
        ("will", "willst", "will", "wollen", "wollt", "wollen"),
    ),
)
MODAL_BY_KEY: dict[str, Modal] = {m.key: m for m in MODALS}

HABEN = ("habe", "hast", "hat", "haben", "habt", "haben")
SEIN = ("bin", "bist", "ist", "sind", "seid", "sind")

# -------------------------------------------------------------------- pronouns


@dataclass(frozen=True)
class Pronoun:
    key: str
    person: int  # conjugation index 0..5
    en_subject: tuple[str, ...]
    en_object: tuple[str, ...]
    de_nom: str
    de_acc: str
    de_dat: str
    en_possessive: str | None  # "my"
    de_possessive: str | None  # ein-word stem "mein"


PRONOUNS: tuple[Pronoun, ...] = (
    Pronoun("i", 0, ("i",), ("me",), "ich", "mich", "mir", "my", "mein"),
    Pronoun("you", 1, ("you",), ("you",), "du", "dich", "dir", "your", "dein"),
    Pronoun("he", 2, ("he",), ("him",), "er", "ihn", "ihm", "his", "sein"),
    Pronoun("she", 2, ("she",), ("her",), "sie", "sie", "ihr", "her", "ihr"),
    Pronoun("it", 2, ("it",), ("it",), "es", "es", "ihm", None, None),
    Pronoun("we", 3, ("we",), ("us",), "wir", "uns", "uns", "our", "unser"),
    Pronoun("you_all", 4, ("you", "all"), ("you", "all"), "ihr", "euch", "euch", None, None),
    Pronoun("they", 5, ("they",), ("them",), "sie", "sie", "ihnen", "their", "ihr"),
)
PRONOUN_BY_KEY: dict[str, Pronoun] = {p.key: p for p in PRONOUNS}
POSSESSIVES: tuple[Pronoun, ...] = tuple(p for p in PRONOUNS if p.en_possessive)

# ------------------------------------------------------- prepositions, adverbs


@dataclass(frozen=True)
class Preposition:
    en: str
    de: str
    case: str  # "dat" | "acc"
    classes: frozenset[str]  # noun classes of its object


PREPOSITIONS: dict[str, Preposition] = {
    "with": Preposition("with", "mit", "dat", frozenset({"person", "animal"})),
    "in": Preposition("in", "in", "dat", frozenset({"place"})),  # location only
    "to": Preposition("to", "zu", "dat", frozenset({"place", "person"})),
    "from": Preposition("from", "von", "dat", frozenset({"place", "person"})),
    "for": Preposition("for", "für", "acc", frozenset({"person", "animal"})),
    "without": Preposition("without", "ohne", "acc", frozenset({"person", "animal"})),
}
# Preposition + definite dative article contractions (always used when possible).
CONTRACTIONS: dict[tuple[str, str], str] = {
    ("zu", "dem"): "zum",
    ("zu", "der"): "zur",
    ("in", "dem"): "im",
    ("von", "dem"): "vom",
}


@dataclass(frozen=True)
class Adverb:
    en: str
    de: str
    tenses: frozenset[str]  # "present" | "perfect" | "modal"


ADVERBS: tuple[Adverb, ...] = (
    Adverb("today", "heute", frozenset({"present", "perfect", "modal"})),
    Adverb("now", "jetzt", frozenset({"present", "perfect", "modal"})),
    Adverb("then", "dann", frozenset({"present", "modal"})),
    Adverb("sometimes", "manchmal", frozenset({"present", "modal"})),
    Adverb("often", "oft", frozenset({"present", "modal"})),
    Adverb("usually", "meistens", frozenset({"present"})),
    Adverb("tomorrow", "morgen", frozenset({"present", "modal"})),
    Adverb("unfortunately", "leider", frozenset({"present", "perfect", "modal"})),
    Adverb("finally", "endlich", frozenset({"present", "perfect", "modal"})),
)
ADVERB_BY_EN: dict[str, Adverb] = {a.en: a for a in ADVERBS}

# Subordinating conjunctions: English word -> German word (verb-final clause).
CONJUNCTIONS: dict[str, str] = {"that": "dass", "because": "weil", "if": "wenn", "when": "wenn"}

NUMBERS: dict[str, str] = {
    "one": "ein",  # declined like the indefinite article
    "two": "zwei",
    "three": "drei",
    "four": "vier",
    "five": "fünf",
    "six": "sechs",
    "seven": "sieben",
    "eight": "acht",
    "nine": "neun",
    "ten": "zehn",
    "eleven": "elf",
    "twelve": "zwölf",
}
