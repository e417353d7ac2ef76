"""Source of benchmarks/data/authored_mixed.json (see the data README): mixed subjects.

Written by the rubricjudge developers (MIT). Penalties are faults: MET = committed.
"""

Q = []


def q(qid, question, criteria, penalty, answers):
    Q.append(dict(id=qid, question=question, criteria=criteria, penalty=penalty, answers=answers))


q(
    "capital_france",
    "What is the capital of France?",
    [
        "States that the capital of France is Paris",
        "Answers in one or two sentences",
        "Names a fact about Paris beyond it being the capital (e.g. the Eiffel Tower, the Seine)",
    ],
    "Contains a factual error",
    [
        ("Paris is the capital of France.", ["MET", "MET", "UNMET", "UNMET"]),
        ("The capital is Paris, which sits on the Seine.", ["MET", "MET", "MET", "UNMET"]),
        (
            "France's capital is Lyon, the largest city on the Seine.",
            ["UNMET", "MET", "UNMET", "MET"],
        ),
        ("I think it's paris, where the eiffel tower is", ["MET", "MET", "MET", "UNMET"]),
        (
            "France is a country in Western Europe known for its wine and cheese. It has many beautiful cities and a long history going back to the Gauls and the Romans. The food is excellent.",
            ["UNMET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "water_boil",
    "Why does water boil at a lower temperature on a high mountain?",
    [
        "States that air pressure is lower at high altitude",
        "Explains that water boils when its vapour pressure equals the surrounding pressure",
        "Concludes that less heat (a lower temperature) is needed to boil",
    ],
    "Claims that the air is colder so water boils sooner",
    [
        (
            "Up a mountain the atmospheric pressure is lower. Water boils when its vapour pressure matches the outside pressure, so it reaches that point at a lower temperature, around 90 °C on a high peak.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "less air pushing down on the water up there so it boils at a lower temp",
            ["MET", "UNMET", "MET", "UNMET"],
        ),
        (
            "Because it is colder on the mountain, the water boils faster.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "Boiling happens when bubbles of vapour form inside the liquid.",
            ["UNMET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "dna_role",
    "What is the role of DNA in a cell?",
    [
        "States that DNA stores genetic information or instructions",
        "Mentions that DNA is used to make proteins",
        "Mentions that DNA is passed on (copied) when cells divide or to offspring",
    ],
    "Claims that DNA is a protein",
    [
        (
            "DNA holds the genetic instructions. Genes are read to make proteins, and DNA is copied when the cell divides so each new cell gets a copy.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "its like the recipe book for the cell, it tells it how to build proteins",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        ("DNA is a protein that gives the cell energy.", ["UNMET", "UNMET", "UNMET", "MET"]),
        (
            "Kids look like their parents because DNA gets passed down to them.",
            ["MET", "UNMET", "MET", "UNMET"],
        ),
    ],
)

q(
    "acid_base",
    "What happens when you add an acid to a base?",
    [
        "Names the reaction as neutralisation",
        "States that a salt and water are produced",
        "Mentions that the pH moves towards 7",
    ],
    "Claims that the mixture becomes more acidic than the acid alone",
    [
        (
            "It's a neutralisation reaction: acid + base gives a salt and water, and the pH moves towards 7.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        ("they cancel each other out and you get salt + H2O", ["MET", "MET", "UNMET", "UNMET"]),
        ("Mixing them makes a stronger acid.", ["UNMET", "UNMET", "UNMET", "MET"]),
        ("For example HCl and NaOH give NaCl and water.", ["UNMET", "MET", "UNMET", "UNMET"]),
    ],
)

q(
    "prime_check",
    "Is 91 a prime number? Explain.",
    [
        "States that 91 is not prime",
        "Gives the factorisation 7 × 13",
        "Explains what a prime number is (only divisible by 1 and itself)",
    ],
    "Claims that 91 is divisible by 3",
    [
        (
            "No. 91 = 7 x 13, so it has divisors other than 1 and itself, which a prime can't have.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        ("not prime, 7 times 13 is 91", ["MET", "MET", "UNMET", "UNMET"]),
        (
            "No, because 9 + 1 = 10... actually 91 / 3 works so it's not prime.",
            ["MET", "UNMET", "UNMET", "MET"],
        ),
        (
            "Yes, 91 is prime because it is odd and doesn't end in 5.",
            ["UNMET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "binary_search",
    "Explain how binary search finds a value in a sorted list.",
    [
        "States that it compares the target with the middle element",
        "States that it discards the half that cannot contain the target",
        "Gives the running time as O(log n) or says it halves the search space each step",
    ],
    "Claims that binary search works on unsorted lists",
    [
        (
            "Look at the middle element. If the target is smaller, keep only the left half, otherwise the right half, and repeat. Each step halves the range, so it takes O(log n) comparisons.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "you check the middle one and throw away the half it cant be in, over and over",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "It checks every element one by one, and it works whether or not the list is sorted.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        ("Binary search is fast, about log n steps.", ["UNMET", "UNMET", "MET", "UNMET"]),
    ],
)

q(
    "heart_function",
    "What does the heart do?",
    [
        "States that it pumps blood around the body",
        "Mentions that blood carries oxygen (and nutrients) to the body",
        "Mentions the lungs (blood goes to the lungs to pick up oxygen)",
    ],
    "Claims that the heart makes blood",
    [
        (
            "The heart pumps blood. It sends blood to the lungs to pick up oxygen, then pumps it round the body to deliver oxygen and nutrients.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        ("it pushes blood through your arteries and veins", ["MET", "UNMET", "UNMET", "UNMET"]),
        ("The heart produces the blood the body needs.", ["UNMET", "UNMET", "UNMET", "MET"]),
        (
            "Blood gets oxygen in the lungs and takes it to the muscles.",
            ["UNMET", "MET", "MET", "UNMET"],
        ),
    ],
)

q(
    "greenhouse",
    "How does the greenhouse effect warm the Earth?",
    [
        "States that the Earth's surface gives off infrared (heat) radiation",
        "States that greenhouse gases absorb (trap) some of that radiation",
        "Names at least one greenhouse gas (e.g. carbon dioxide, methane, water vapour)",
    ],
    "Claims that the greenhouse effect is caused by the hole in the ozone layer",
    [
        (
            "Sunlight warms the ground, which then radiates infrared. Gases such as CO2 and methane absorb some of this infrared and send it back, keeping the planet warmer.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "gases like carbon dioxide trap heat in the atmosphere like a blanket",
            ["UNMET", "MET", "MET", "UNMET"],
        ),
        (
            "The hole in the ozone layer lets more heat in, which is the greenhouse effect.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "It's getting hotter every year because of pollution.",
            ["UNMET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "fraction_add",
    "What is 1/2 + 1/3? Show how you got it.",
    [
        "Gives the answer 5/6",
        "Uses a common denominator of 6",
        "Shows the converted fractions 3/6 and 2/6",
    ],
    "Adds the numerators and the denominators separately (e.g. gets 2/5)",
    [
        (
            "Common denominator 6: 1/2 = 3/6 and 1/3 = 2/6, so the sum is 5/6.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        ("3/6 + 2/6 = 5/6", ["MET", "MET", "MET", "UNMET"]),
        ("1/2 + 1/3 = (1+1)/(2+3) = 2/5", ["UNMET", "UNMET", "UNMET", "MET"]),
        ("It's 5/6.", ["MET", "UNMET", "UNMET", "UNMET"]),
    ],
)

q(
    "rust",
    "Why does iron rust?",
    [
        "States that iron reacts with oxygen",
        "States that water (moisture) is needed",
        "Names rust as iron oxide",
    ],
    "Claims that rust is caused by the iron getting too hot",
    [
        (
            "Iron reacts with oxygen in the presence of water to form hydrated iron oxide, which is rust.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "it needs air and water, that's why a nail in dry air doesn't rust",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        ("Iron rusts when it overheats in the sun.", ["UNMET", "UNMET", "UNMET", "MET"]),
        ("Rust is reddish-brown iron oxide.", ["UNMET", "UNMET", "MET", "UNMET"]),
    ],
)

q(
    "moon_phases",
    "Why does the Moon show phases?",
    [
        "States that the Moon reflects light from the Sun",
        "Explains that we see different amounts of its lit half as it orbits the Earth",
        "States that half of the Moon is always lit by the Sun",
    ],
    "Claims that the phases are caused by the Earth's shadow",
    [
        (
            "The Moon shines by reflected sunlight, and half of it is always lit. As it orbits us we see more or less of that lit half, which gives the phases.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "as it goes round us we see different bits of the sunny side",
            ["UNMET", "MET", "UNMET", "UNMET"],
        ),
        (
            "The Earth's shadow covers part of the Moon, which makes the phases.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "The Moon has no light of its own; it reflects the Sun's.",
            ["MET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "ohms_law",
    "A 12 V battery is connected to a 4 Ω resistor. What current flows?",
    [
        "Uses Ohm's law (V = IR or I = V/R)",
        "Gives the current as 3 A",
        "Includes the unit amperes (A) in the answer",
    ],
    "Multiplies voltage by resistance to get the current (48 A)",
    [
        ("I = V / R = 12 / 4 = 3 A.", ["MET", "MET", "MET", "UNMET"]),
        ("by ohms law current is 12 divided by 4 which is 3 amps", ["MET", "MET", "MET", "UNMET"]),
        ("I = V x R = 12 x 4 = 48 A", ["UNMET", "UNMET", "MET", "MET"]),
        ("The current is 3.", ["UNMET", "MET", "UNMET", "UNMET"]),
    ],
)

q(
    "evolution",
    "How does natural selection lead to evolution?",
    [
        "States that individuals in a population vary",
        "States that individuals better suited to their environment survive and reproduce more",
        "States that their traits are passed on to offspring, so they become more common over generations",
    ],
    "Claims that individuals change their own traits during their lifetime because they need to",
    [
        (
            "Members of a population vary. Those whose traits suit the environment survive and have more offspring, passing those traits on, so over many generations the traits become common.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "the ones that fit in best live longer and have more babies, and the babies get their genes",
            ["UNMET", "MET", "MET", "UNMET"],
        ),
        (
            "Giraffes stretched their necks to reach leaves, so their necks grew longer.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        (
            "Not every animal in a group is the same: some are faster, some are bigger.",
            ["MET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "projectile",
    "A ball is thrown horizontally off a cliff. Describe its motion.",
    [
        "States that the horizontal velocity stays constant (ignoring air resistance)",
        "States that the vertical velocity increases because of gravity",
        "Describes the path as a curve (parabola)",
    ],
    "Claims that the ball falls straight down once it leaves the cliff",
    [
        (
            "Ignoring air resistance, its horizontal speed stays the same while gravity makes it speed up downwards, so it follows a parabola.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "it keeps going forward at the same speed but falls faster and faster so it curves down",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "As soon as it leaves your hand it drops straight down.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        ("It curves down to the ground.", ["UNMET", "UNMET", "MET", "UNMET"]),
    ],
)

q(
    "http_vs_https",
    "What is the difference between HTTP and HTTPS?",
    [
        "States that HTTPS encrypts the traffic",
        "Mentions TLS (or SSL) or certificates",
        "States that encryption protects data from being read or changed by others on the network",
    ],
    "Claims that HTTPS makes websites load faster because it is encrypted",
    [
        (
            "HTTPS is HTTP over TLS: the connection is encrypted and the server proves its identity with a certificate, so others on the network can't read or tamper with the data.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "the s means secure, it scrambles your data so hackers on the wifi cant see it",
            ["MET", "UNMET", "MET", "UNMET"],
        ),
        ("HTTPS is faster because encrypted data is smaller.", ["UNMET", "UNMET", "UNMET", "MET"]),
        (
            "HTTPS websites have a padlock icon and use port 443.",
            ["UNMET", "UNMET", "UNMET", "UNMET"],
        ),
    ],
)

q(
    "inflation",
    "What is inflation?",
    [
        "States that inflation is a general rise in prices",
        "States that money buys less (its purchasing power falls)",
        "Mentions how it is measured (e.g. a price index such as the CPI) or gives it as a yearly percentage",
    ],
    "Claims that inflation means prices are falling",
    [
        (
            "Inflation is a general rise in prices over time, so each unit of money buys less. It is usually measured as the yearly percentage change of a price index like the CPI.",
            ["MET", "MET", "MET", "UNMET"],
        ),
        (
            "when stuff gets more expensive and your money doesnt go as far",
            ["MET", "MET", "UNMET", "UNMET"],
        ),
        (
            "Inflation is when prices go down across the economy.",
            ["UNMET", "UNMET", "UNMET", "MET"],
        ),
        ("Central banks raise interest rates to fight it.", ["UNMET", "UNMET", "UNMET", "UNMET"]),
    ],
)
