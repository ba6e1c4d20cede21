"""English→German pairs written by hand, independently of the generator in corpus/v1/grammar.py."""

# Written by hand, independently of the generator, and checked as German.
# (English as a user would type it, German in normal orthography.)
HAND_CHECKED: list[tuple[str, str]] = [
    # articles, gender and case, adjective endings
    ("The small dog sees the old man.", "Der kleine Hund sieht den alten Mann."),
    ("A woman reads a new book.", "Eine Frau liest ein neues Buch."),
    ("The child eats an apple.", "Das Kind isst einen Apfel."),
    ("I see the big dog.", "Ich sehe den großen Hund."),
    ("You buy a red car.", "Du kaufst ein rotes Auto."),
    ("He has a small cat.", "Er hat eine kleine Katze."),
    ("She writes a long letter.", "Sie schreibt einen langen Brief."),
    ("It sleeps.", "Es schläft."),
    ("We visit the old teacher.", "Wir besuchen den alten Lehrer."),
    ("You all read the newspaper.", "Ihr lest die Zeitung."),
    ("They eat the bread.", "Sie essen das Brot."),
    ("I know the man.", "Ich kenne den Mann."),
    ("You wash the dirty cups.", "Du wäschst die schmutzigen Tassen."),
    ("The father carries the tired child.", "Der Vater trägt das müde Kind."),
    # dative objects, ditransitives, weak nouns
    ("The teacher helps the student.", "Der Lehrer hilft dem Studenten."),
    ("A young man helps an old woman.", "Ein junger Mann hilft einer alten Frau."),
    ("A student thanks the teacher.", "Ein Student dankt dem Lehrer."),
    ("The boy gives the girl a flower.", "Der Junge gibt dem Mädchen eine Blume."),
    ("The mother shows the children a picture.", "Die Mutter zeigt den Kindern ein Bild."),
    (
        "The friend tells the young boy a funny story.",
        "Der Freund erzählt dem jungen Jungen eine lustige Geschichte.",
    ),
    (
        "The king sends the queen a long letter.",
        "Der König schickt der Königin einen langen Brief.",
    ),
    (
        "The woman gives the small dogs the old bread.",
        "Die Frau gibt den kleinen Hunden das alte Brot.",
    ),
    ("The farmer has seen an elephant.", "Der Bauer hat einen Elefanten gesehen."),
    # verb second after a fronted adverb
    ("Today the dog sees the man.", "Heute sieht der Hund den Mann."),
    ("Sometimes we play in the garden.", "Manchmal spielen wir im Garten."),
    ("Now the woman drinks the coffee.", "Jetzt trinkt die Frau den Kaffee."),
    ("Tomorrow I visit my grandmother.", "Morgen besuche ich meine Großmutter."),
    ("Today I have found a key.", "Heute habe ich einen Schlüssel gefunden."),
    ("Unfortunately the cat cannot swim.", "Leider kann die Katze nicht schwimmen."),
    # perfect with haben / sein
    ("The dog has seen the man.", "Der Hund hat den Mann gesehen."),
    ("The woman has gone to the school.", "Die Frau ist zur Schule gegangen."),
    ("We have eaten the cake.", "Wir haben den Kuchen gegessen."),
    ("The children have come from the park.", "Die Kinder sind vom Park gekommen."),
    ("The cat has followed the dog.", "Die Katze ist dem Hund gefolgt."),
    (
        "I have written a letter for my mother.",
        "Ich habe einen Brief für meine Mutter geschrieben.",
    ),
    ("The children have swum.", "Die Kinder sind geschwommen."),
    # modal verbs
    ("The dog can see the man.", "Der Hund kann den Mann sehen."),
    ("You must read the book.", "Du musst das Buch lesen."),
    ("The child wants to play with the dog.", "Das Kind will mit dem Hund spielen."),
    ("We want to buy a new house.", "Wir wollen ein neues Haus kaufen."),
    ("You all must not eat the cake.", "Ihr dürft den Kuchen nicht essen."),
    ("The boy cannot find the ball.", "Der Junge kann den Ball nicht finden."),
    ("I must not forget the key.", "Ich darf den Schlüssel nicht vergessen."),
    # subordinate clauses
    ("I know that the dog sees the man.", "Ich weiß, dass der Hund den Mann sieht."),
    (
        "She says that the teacher has read the book.",
        "Sie sagt, dass der Lehrer das Buch gelesen hat.",
    ),
    (
        "The dog sleeps because the man reads a book.",
        "Der Hund schläft, weil der Mann ein Buch liest.",
    ),
    (
        "The children play in the park when the teacher works.",
        "Die Kinder spielen im Park, wenn der Lehrer arbeitet.",
    ),
    ("We think that you can help the woman.", "Wir denken, dass du der Frau helfen kannst."),
    ("He hopes that his friend has come.", "Er hofft, dass sein Freund gekommen ist."),
    (
        "I believe that the children cannot sleep.",
        "Ich glaube, dass die Kinder nicht schlafen können.",
    ),
    # negation with nicht / kein
    ("The dog does not see the man.", "Der Hund sieht den Mann nicht."),
    ("The man has no dog.", "Der Mann hat keinen Hund."),
    ("The woman does not have a car.", "Die Frau hat kein Auto."),
    ("I do not like the soup.", "Ich mag die Suppe nicht."),
    ("The children do not eat apples.", "Die Kinder essen keine Äpfel."),
    ("He has not helped the old man.", "Er hat dem alten Mann nicht geholfen."),
    ("The girl does not want to go to the school.", "Das Mädchen will nicht zur Schule gehen."),
    ("The girl has no new shoes.", "Das Mädchen hat keine neuen Schuhe."),
    ("He has no small dog.", "Er hat keinen kleinen Hund."),
    # yes/no questions
    ("Does the dog see the man?", "Sieht der Hund den Mann?"),
    ("Do you like the cat?", "Magst du die Katze?"),
    ("Has the woman gone to the station?", "Ist die Frau zum Bahnhof gegangen?"),
    ("Can you help me?", "Kannst du mir helfen?"),
    ("Does the child want to drink milk?", "Will das Kind Milch trinken?"),
    ("Do you all see the birds?", "Seht ihr die Vögel?"),
    ("Do they know the famous doctor?", "Kennen sie den berühmten Arzt?"),
    # prepositions (dative: mit, zu, von, in; accusative: für, ohne)
    ("The man plays with the children.", "Der Mann spielt mit den Kindern."),
    ("The woman buys a toy for the child.", "Die Frau kauft ein Spielzeug für das Kind."),
    ("The boy goes without his dog.", "Der Junge geht ohne seinen Hund."),
    ("The teacher drives to the city.", "Der Lehrer fährt zur Stadt."),
    ("The mouse runs to the house.", "Die Maus läuft zum Haus."),
    ("The doctor works in the hospital.", "Der Arzt arbeitet im Krankenhaus."),
    ("The dog runs to the neighbor.", "Der Hund läuft zum Nachbarn."),
    ("An old bear sleeps in the forest.", "Ein alter Bär schläft im Wald."),
    # pronoun objects
    ("The dog sees him.", "Der Hund sieht ihn."),
    ("The man helps her.", "Der Mann hilft ihr."),
    ("We give them the book.", "Wir geben ihnen das Buch."),
    ("She visits us.", "Sie besucht uns."),
    ("The teacher asks you all.", "Der Lehrer fragt euch."),
    # numbers, plurals, bare plurals, possessives, mass nouns
    ("Two dogs see three cats.", "Zwei Hunde sehen drei Katzen."),
    ("Five children eat twelve cookies.", "Fünf Kinder essen zwölf Kekse."),
    ("The man has one dog.", "Der Mann hat einen Hund."),
    ("The old women read new books.", "Die alten Frauen lesen neue Bücher."),
    ("Small children like big dogs.", "Kleine Kinder mögen große Hunde."),
    ("The small girls dance with two boys.", "Die kleinen Mädchen tanzen mit zwei Jungen."),
    ("My brother has a black dog.", "Mein Bruder hat einen schwarzen Hund."),
    ("Our neighbor sells his red car.", "Unser Nachbar verkauft sein rotes Auto."),
    ("The cat drinks milk.", "Die Katze trinkt Milch."),
    # two main clauses
    ("The dog sleeps and the man reads a book.", "Der Hund schläft und der Mann liest ein Buch."),
]
