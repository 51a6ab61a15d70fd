"""The first screen's example conversations. One click plays each in fresh columns: a message with a reply is
stored as given in both, one without is answered live in both. What each shows on the shipped model is in the
README ("The demo model") and is checked by tests/model/test_instruct_adapter.py."""

_EARLIER_TURNS = (
    (
        "Can you suggest a good recipe for dinner tonight?",
        "Roasted chicken with lemon and herbs is easy: rub the chicken with olive oil, garlic, lemon zest and "
        "thyme, then roast it at 200 C for about an hour.",
    ),
    (
        "What side dish goes well with it?",
        "Roasted vegetables such as carrots, potatoes and onions pair well, and they can share the oven with the "
        "chicken.",
    ),
    (
        "Tell me a fun fact about octopuses.",
        "Octopuses have three hearts and blue blood, and each of their eight arms can act somewhat on its own.",
    ),
    (
        "Why is the sky blue?",
        "Sunlight is scattered by the molecules of the air, and blue light, with its short wavelength, is "
        "scattered much more than red light.",
    ),
    (
        "Recommend a classic science fiction novel.",
        "Fahrenheit 451 by Ray Bradbury is a short classic about a future where books are burned.",
    ),
    (
        "What is a good way to start running as a beginner?",
        "Try run-walk intervals: alternate one minute of jogging with two minutes of walking, three times a week, "
        "and build up slowly.",
    ),
)
_LATER_TURNS = (
    (
        "We finally finished unpacking the new flat. My sister left me her fiddle-leaf fig, snake plant and pothos "
        "when she moved to Lisbon. What colour should I paint the living room?",
        "A warm off-white or a soft sage green suits most living rooms: it brightens the space, goes with wooden "
        "furniture and sets off artwork. Paint two or three sample patches on different walls and look at them in "
        "morning and evening light before you decide.",
    ),
    (
        "Any tips for getting to know my new neighbours?",
        "Introduce yourself when you pass in the hallway, leave a short note with your name and flat number, and "
        "join the building's chat group if there is one; a small housewarming drink also helps.",
    ),
    (
        "Is there a good app for splitting the bills with my flatmate?",
        "Splitwise is the usual choice: you both log shared costs such as rent, energy and groceries, and it keeps "
        "a running balance of who owes whom, with reminders when it is time to settle up.",
    ),
    (
        "What is a quick vegetarian dinner I can cook in one pan?",
        "A chickpea and spinach curry: soften an onion with garlic and curry paste, add a tin of chickpeas and a tin "
        "of coconut milk, simmer ten minutes and stir in spinach. Serve with rice or flatbread.",
    ),
    (
        "Can you recommend a podcast for my new commute? It is about forty minutes.",
        "Try 99% Invisible, short episodes on design and architecture that fit a forty-minute ride well, or The Rest "
        "Is History if you prefer longer storytelling.",
    ),
    (
        "How much water should I drink on a long run when it is hot out?",
        "Aim for roughly 400 to 800 ml per hour, taken in small sips every 15 to 20 minutes, and add electrolytes if "
        "you run for more than an hour or sweat heavily.",
    ),
)
LETTER_INSTRUCTION = "For the rest of this conversation, start every reply with the letter R."
# Twelve given replies that ignore the instruction, as a model that forgot it would write them; then three live
# questions. On the shipped model REA starts all three replies with R, vanilla only the first (README).
LETTER_EXAMPLE_LIVE = (
    "We finally had a free weekend and went to the beach. It was fun!",
    "Can you suggest a good book for a long train ride?",
    "What should I pack for a weekend hike?",
)
LOWERCASE_INSTRUCTION = "From now on, answer only in lowercase letters."
# The same twelve given replies, then three live questions. REA's decoding keeps IM's lowercase rule; vanilla,
# with no IM, is left to the model, which does not write in lowercase (README).
LOWERCASE_EXAMPLE_LIVE = (
    "What is the capital of France? Tell me one thing to see there.",
    "Can you suggest a good book for a long train ride?",
    "What should I pack for a weekend hike?",
)
EXAMPLES: tuple[tuple[str, tuple[tuple[str, str | None], ...]], ...] = (
    (
        "An instruction 13 turns back: answer in lowercase",
        (
            (LOWERCASE_INSTRUCTION, "Understood."),
            *_EARLIER_TURNS,
            *_LATER_TURNS,
            *((question, None) for question in LOWERCASE_EXAMPLE_LIVE),
        ),
    ),
    (
        "An instruction 13 turns back: start every reply with R",
        (
            (LETTER_INSTRUCTION, "Understood."),
            *_EARLIER_TURNS,
            *_LATER_TURNS,
            *((question, None) for question in LETTER_EXAMPLE_LIVE),
        ),
    ),
)
